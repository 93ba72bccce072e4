public import Foundation

/// Where an object store speaking the S3 protocol answers, and how requests to it are signed:
/// AWS S3, or Cloudflare R2, Google Cloud Storage's interoperability API, Ceph, MinIO,
/// SeaweedFS at an endpoint of their own.
///
/// ```swift
/// let store = S3Endpoint(
///     url: URL(string: "http://127.0.0.1:8333")!, region: "us-east-1",
///     credentials: AWSCredentials(accessKeyID: "magpie", secretAccessKey: secret))
/// ```
public struct S3Endpoint: Sendable, Hashable {
    /// How a bucket is named in a request.
    public enum Addressing: Sendable, Hashable {
        /// `https://endpoint/bucket/key`: every store answers it.
        case path
        /// `https://bucket.endpoint/key`: AWS's preferred form, which needs the bucket's name
        /// to be a host name.
        case virtualHost
    }

    /// The store's base URL.
    public var url: URL
    /// The region requests are signed for.
    public var region: String
    /// The keys that sign; `nil` sends requests unsigned, for public buckets.
    public var credentials: AWSCredentials?
    public var addressing: Addressing

    /// A store at `url`, or AWS S3 in `region` when `url` is `nil`; addressed by path at an
    /// endpoint of its own, by virtual host at AWS, unless `addressing` says.
    public init(url: URL? = nil, region: String = "us-east-1", credentials: AWSCredentials? = nil, addressing: Addressing? = nil) {
        self.url = url ?? URL(string: "https://s3.\(region).amazonaws.com")!
        self.region = region
        self.credentials = credentials
        self.addressing = addressing ?? (url == nil ? .virtualHost : .path)
    }

    /// The store the standard variables describe: `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`,
    /// `AWS_REGION` or `AWS_DEFAULT_REGION`, and the credentials (``AWSCredentials/init(environment:)``).
    public init(environment: [String: String]) {
        let endpoint = (environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"]).flatMap { $0.isEmpty ? nil : URL(string: $0) }
        let region = [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]].compactMap { $0 }.first { !$0.isEmpty }
        self.init(url: endpoint, region: region ?? "us-east-1", credentials: AWSCredentials(environment: environment))
    }

    /// The request for `key` in `bucket`, signed at `date` for a body whose SHA-256 is
    /// `payloadHash`. `headers` are signed too.
    func request(
        _ method: String, bucket: String, key: String, query: [(name: String, value: String)] = [], headers: [(name: String, value: String)] = [],
        payloadHash: String = SigV4Signer.emptyPayloadHash, at date: Date
    ) -> OutgoingRequest {
        let base = url.path(percentEncoded: true).trimmingSuffix("/")
        let encodedKey = SigV4Signer.uriEncode(key, keepingSlashes: true)
        var host = url.host(percentEncoded: false) ?? ""
        let path: String
        switch addressing {
        case .path: path = "\(base)/\(SigV4Signer.uriEncode(bucket))/\(encodedKey)"
        case .virtualHost:
            host = "\(bucket).\(host)"
            path = "\(base)/\(encodedKey)"
        }
        let authority = url.port.map { $0 == DataLoader.defaultPort(url) ? host : "\(host):\($0)" } ?? host
        var components = URLComponents()
        components.scheme = url.scheme
        components.host = host
        components.port = url.port
        components.percentEncodedPath = path
        if !query.isEmpty {
            components.percentEncodedQuery = query.map { "\(SigV4Signer.uriEncode($0.name))=\(SigV4Signer.uriEncode($0.value))" }
                .joined(separator: "&")
        }
        var signed = [(name: "Host", value: authority), (name: "X-Amz-Content-SHA256", value: payloadHash)] + headers
        if let credentials {
            let signer = SigV4Signer(credentials: credentials, region: region, service: "s3")
            signed += signer.signingHeaders(
                for: SigV4Signer.Request(method: method, path: path, query: query, headers: signed, payloadHash: payloadHash), at: date)
        }
        var fields: [String: String] = [:]
        for (name, value) in signed { fields[name] = value }
        return OutgoingRequest(url: components.url ?? url, headers: fields)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
