import Foundation

/// Reads `s3://bucket/key` sources from an object store speaking the S3 protocol (imgproxy's
/// `s3://` sources; `s3://bucket/key?version` names a version).
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.sourceLoaders["s3"] = S3Loader(endpoint: S3Endpoint(environment: ProcessInfo.processInfo.environment))
/// configuration.sourcePolicy = SourcePolicy(allowedPrefixes: [SourcePrefix("s3://photos/")!])
/// ```
///
/// The store is remote: what it returns is kept in the disk cache and revalidated with its
/// `ETag`, a body that breaks off is resumed with a range, and loads wait for a download slot
/// like HTTP ones. Requests go to the endpoint directly (it is the configuration's, so
/// ``ImagePipeline/Configuration/addressPolicy`` does not apply to it) and are never
/// redirected. A missing key or bucket is ``MagpieError/sourceNotFound(_:)``; any other
/// refusal is ``MagpieError/sourceRefused(_:status:reason:)`` with the store's own code and
/// message. Which buckets may be read is said here (``allowedBuckets``, ``deniedBuckets``,
/// imgproxy's `IMGPROXY_S3_ALLOWED_BUCKETS` and `_DENIED_BUCKETS`) or by the ``SourcePolicy``
/// (`s3://bucket/` prefixes); a bucket refused is
/// ``MagpieError/sourceNotAllowed(host:hop:url:)``, and the store is never asked.
public struct S3Loader: SourceLoader {
    public let endpoint: S3Endpoint
    /// The buckets that may be read; empty allows every one not denied.
    public var allowedBuckets: Set<String>
    /// Buckets never read, whatever ``allowedBuckets`` says.
    public var deniedBuckets: Set<String>

    public init(endpoint: S3Endpoint, allowedBuckets: Set<String> = [], deniedBuckets: Set<String> = []) {
        self.endpoint = endpoint
        self.allowedBuckets = allowedBuckets
        self.deniedBuckets = deniedBuckets
    }

    public var isRemote: Bool { true }

    public func load(_ request: SourceRequest) async throws(MagpieError) -> SourceResponse {
        let url = request.url
        guard let bucket = url.host(percentEncoded: false), !bucket.isEmpty else {
            throw .invalidURL(url.absoluteString, reason: "it names no bucket")
        }
        guard allowedBuckets.isEmpty || allowedBuckets.contains(bucket), !deniedBuckets.contains(bucket) else {
            throw .sourceNotAllowed(host: bucket, hop: 0, url: url)
        }
        let key = String(url.path(percentEncoded: false).dropFirst())
        guard !key.isEmpty else { throw .invalidURL(url.absoluteString, reason: "it names no object key") }
        let version = url.query(percentEncoded: false).flatMap { $0.isEmpty ? nil : $0 }
        // Signed with the real time, not the pipeline's clock: the store refuses a signature
        // more than minutes away from its own.
        let outgoing = endpoint.request("GET", bucket: bucket, key: key, query: version.map { [(name: "versionId", value: $0)] } ?? [], at: Date())
        return try await request.transport.load(outgoing, to: .endpoint, revalidating: request.cached, for: request.download)
            .sourceResponse { status, excerpt in
                let answer = S3ErrorAnswer(excerpt)
                if status == 404 || ["NoSuchKey", "NoSuchBucket", "NoSuchVersion"].contains(answer.code) { return .sourceNotFound(url) }
                return .sourceRefused(url, status: status, reason: answer.reason ?? "no reason given")
            }
    }
}
