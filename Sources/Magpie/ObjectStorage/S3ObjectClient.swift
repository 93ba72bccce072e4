import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Objects in a store speaking the S3 protocol, for the shared store: written in one `PUT`, or
/// above a size in parts (a multipart upload), once when asked (`If-None-Match: *`: a key
/// already there is left as it is, so two replicas rendering the same variant cannot replace
/// each other's); read whole up to a size; listed by prefix; deleted.
struct S3ObjectClient: Sendable {
    /// What a write did.
    enum Outcome: Sendable, Equatable {
        /// The object is stored; its `ETag`.
        case written(etag: String?)
        /// Written once only, and the key was already there: nothing was changed.
        case alreadyThere
    }

    let endpoint: S3Endpoint
    let client: HTTPClient
    /// Objects larger than this go up in parts.
    var multipartThreshold = 16 * 1024 * 1024
    /// The size of each part but the last (S3 takes 5 MiB at least).
    var partSize = 8 * 1024 * 1024
    /// How long one request to the store may take, body included.
    var timeout: Duration = .seconds(30)

    /// Stores `bytes` at `key` in `bucket` with `metadata` (sent as `x-amz-meta-NAME`); with
    /// `once`, only if nothing is there yet. `sha256`, the bytes' hex SHA-256 when the caller
    /// has it, spares hashing them again for the signature.
    func put(
        _ bytes: [UInt8], bucket: String, key: String, contentType: String? = nil, metadata: [String: String] = [:], once: Bool,
        sha256: String? = nil
    ) async throws(MagpieError) -> Outcome {
        var headers = metadata.sorted { $0.key < $1.key }.map { (name: "x-amz-meta-\($0.key.lowercased())", value: $0.value) }
        if let contentType { headers.append((name: "Content-Type", value: contentType)) }
        guard bytes.count > multipartThreshold else {
            if once { headers.append((name: "If-None-Match", value: "*")) }
            let answer = try await send("PUT", bucket: bucket, key: key, headers: headers, body: bytes, payloadHash: sha256)
            return try outcome(of: answer, bucket: bucket, key: key)
        }
        return try await putInParts(bytes, bucket: bucket, key: key, headers: headers, once: once)
    }

    /// The object at `key`: its headers (the `x-amz-meta-*` metadata among them) and its bytes;
    /// `nil` when there is none. An object larger than `limit` is refused.
    func get(bucket: String, key: String, limit: Int) async throws(MagpieError) -> (headers: HTTPHeaders, body: [UInt8])? {
        let answer = try await send("GET", bucket: bucket, key: key, bodyLimit: limit)
        switch answer.status {
        case 200: return (answer.headers, answer.body)
        case 404: return nil
        default: throw refusal(answer, bucket: bucket, key: key)
        }
    }

    /// The keys under `prefix` in `bucket`, at most `limit` of them (ListObjectsV2, a page of
    /// up to 1,000 at a time).
    func keys(bucket: String, prefix: String, limit: Int) async throws(MagpieError) -> [String] {
        var keys: [String] = []
        var token: String?
        repeat {
            var query = [(name: "list-type", value: "2"), (name: "prefix", value: prefix)]
            if let token { query.append((name: "continuation-token", value: token)) }
            let answer = try await send("GET", bucket: bucket, key: "", query: query, bodyLimit: 4 * 1024 * 1024)
            guard answer.status == 200 else { throw refusal(answer, bucket: bucket, key: prefix) }
            keys += S3XML.elements("Key", in: answer.body)
            token = S3XML.element("IsTruncated", in: answer.body) == "true" ? S3XML.element("NextContinuationToken", in: answer.body) : nil
        } while token != nil && keys.count < limit
        return Array(keys.prefix(limit))
    }

    /// Removes `key` from `bucket`; a key that is not there is no error.
    func delete(bucket: String, key: String) async throws(MagpieError) {
        let answer = try await send("DELETE", bucket: bucket, key: key)
        guard (200..<300).contains(answer.status) || answer.status == 404 else { throw refusal(answer, bucket: bucket, key: key) }
    }

    private func putInParts(
        _ bytes: [UInt8], bucket: String, key: String, headers: [(name: String, value: String)], once: Bool
    ) async throws(MagpieError) -> Outcome {
        // Written once: a key already there is not worth uploading the parts for. (Another
        // writer can still come between; the completion's condition catches that.)
        if once, try await send("HEAD", bucket: bucket, key: key).status == 200 { return .alreadyThere }
        let started = try await send("POST", bucket: bucket, key: key, query: [(name: "uploads", value: "")], headers: headers)
        guard (200..<300).contains(started.status), let upload = S3XML.element("UploadId", in: started.body) else {
            throw refusal(started, bucket: bucket, key: key)
        }
        do throws(MagpieError) {
            var parts: [(number: Int, etag: String)] = []
            var offset = 0
            while offset < bytes.count {
                let number = parts.count + 1
                let end = min(bytes.count, offset + partSize)
                let answer = try await send(
                    "PUT", bucket: bucket, key: key, query: [(name: "partNumber", value: "\(number)"), (name: "uploadId", value: upload)],
                    body: Array(bytes[offset..<end]))
                guard (200..<300).contains(answer.status), let etag = answer.headers.first(name: "ETag") else {
                    throw refusal(answer, bucket: bucket, key: key)
                }
                parts.append((number, etag))
                offset = end
            }
            let list = parts.map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(S3XML.escaped($0.etag))</ETag></Part>" }.joined()
            let completion = Array("<CompleteMultipartUpload>\(list)</CompleteMultipartUpload>".utf8)
            let answer = try await send(
                "POST", bucket: bucket, key: key, query: [(name: "uploadId", value: upload)],
                headers: once ? [(name: "If-None-Match", value: "*")] : [], body: completion)
            // S3 may answer 200 with an error in the body when the completion fails late.
            if answer.status == 200, S3XML.element("Error", in: answer.body) != nil || S3XML.element("Code", in: answer.body) != nil {
                throw refusal(answer, bucket: bucket, key: key)
            }
            let result = try outcome(of: answer, bucket: bucket, key: key)
            if result == .alreadyThere { _ = try? await send("DELETE", bucket: bucket, key: key, query: [(name: "uploadId", value: upload)]) }
            return result
        } catch {
            // The parts take space until the upload is aborted.
            _ = try? await send("DELETE", bucket: bucket, key: key, query: [(name: "uploadId", value: upload)])
            throw error
        }
    }

    private struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]
    }

    private func outcome(of answer: Answer, bucket: String, key: String) throws(MagpieError) -> Outcome {
        switch answer.status {
        case 200..<300: return .written(etag: answer.headers.first(name: "ETag"))
        case 412: return .alreadyThere
        default: throw refusal(answer, bucket: bucket, key: key)
        }
    }

    private func refusal(_ answer: Answer, bucket: String, key: String) -> MagpieError {
        let url = Self.url(bucket: bucket, key: key)
        let reason = S3ErrorAnswer(answer.body).reason ?? "no reason given"
        return answer.status == 404 ? .sourceNotFound(url) : .sourceRefused(url, status: answer.status, reason: reason)
    }

    /// One signed request, its answer's body read up to `bodyLimit` (by default 64 kB: an
    /// error, an upload id). `payloadHash` is the body's SHA-256, computed here when not given.
    private func send(
        _ method: String, bucket: String, key: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], body: [UInt8] = [], payloadHash: String? = nil, bodyLimit: Int = 64 * 1024
    ) async throws(MagpieError) -> Answer {
        let signed = endpoint.request(
            method, bucket: bucket, key: key, query: query, headers: headers, payloadHash: payloadHash ?? DiskEntryFormat.sha256Hex(body),
            at: Date())
        var request = HTTPClientRequest(url: signed.url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in signed.headers { request.headers.replaceOrAdd(name: name, value: value) }
        if !body.isEmpty || !["GET", "HEAD"].contains(method) {
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let url = Self.url(bucket: bucket, key: key)
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            let status = Int(response.status.code)
            // An error's body is small; only a success reads up to the limit.
            let collected = try await response.body.collect(upTo: (200..<300).contains(status) ? bodyLimit : 64 * 1024)
            return Answer(status: status, headers: response.headers, body: Array(collected.readableBytesView))
        } catch is CancellationError {
            throw .cancelled
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw .timedOut(url)
        } catch is NIOTooManyBytesError {
            throw .responseTooLarge(limit: bodyLimit)
        } catch {
            if Task.isCancelled { throw .cancelled }
            throw .network(NetworkFailure(.other, "the store at \(endpoint.url.host ?? "its endpoint") failed: \(error)"))
        }
    }

    static func url(bucket: String, key: String) -> URL {
        var components = URLComponents()
        components.scheme = "s3"
        components.host = bucket
        components.path = "/" + key
        return components.url ?? URL(string: "s3://\(bucket)")!
    }
}
