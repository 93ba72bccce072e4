import Foundation

/// What the loopback server answers on one path: the response, its latency and bandwidth, and
/// whatever a test does to it (``interference``).
public struct ServedRoute: Sendable {
    /// The response body.
    public var body: [UInt8]
    /// The status sent with the body.
    public var status: Int
    /// `Content-Type`; `nil` sends none.
    public var contentType: String?
    /// Extra header fields (`Cache-Control`, `Retry-After`...).
    public var headers: [String: String]
    /// Sent as `ETag`; a request whose `If-None-Match` matches gets 304.
    public var etag: String?
    /// Sent as `Last-Modified`; a request whose `If-Modified-Since` is not earlier gets 304.
    public var lastModified: String?
    /// Time before the response head is sent.
    public var latency: Duration
    /// Body bandwidth; `nil` sends as fast as the connection takes it.
    public var bytesPerSecond: Int?
    /// Send the body without `Content-Length` (chunked).
    public var omitsContentLength: Bool
    /// What a test does to the response beyond serving it (MagpieTesting's faults and gates).
    public var interference: (any ResponseInterference)?
    /// Sends `Accept-Ranges: bytes` and answers `Range: bytes=N-` with 206 and the rest of the
    /// body, unless an `If-Range` names another version than the route's `ETag` or
    /// `Last-Modified` (then 200 and the whole body, as RFC 9110 says).
    public var acceptsRanges = false

    /// A route serving `body`.
    public init(
        body: [UInt8], status: Int = 200, contentType: String? = "application/octet-stream",
        headers: [String: String] = [:], etag: String? = nil, lastModified: String? = nil,
        latency: Duration = .zero, bytesPerSecond: Int? = nil, omitsContentLength: Bool = false
    ) {
        self.body = body
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.etag = etag
        self.lastModified = lastModified
        self.latency = latency
        self.bytesPerSecond = bytesPerSecond
        self.omitsContentLength = omitsContentLength
    }

    /// An image with the content type its bytes announce.
    public static func image(_ bytes: [UInt8], contentType: String? = nil) -> ServedRoute {
        ServedRoute(body: bytes, contentType: contentType ?? Self.contentType(sniffing: bytes))
    }

    /// A redirect to `location` (absolute, or a path on this server).
    public static func redirect(to location: String, status: Int = 302) -> ServedRoute {
        ServedRoute(body: [], status: status, contentType: nil, headers: ["Location": location])
    }

    /// A status with a short text body.
    public static func status(_ code: Int, headers: [String: String] = [:]) -> ServedRoute {
        ServedRoute(body: Array("status \(code)\n".utf8), status: code, contentType: "text/plain", headers: headers)
    }

    static func contentType(sniffing bytes: [UInt8]) -> String {
        if bytes.starts(with: [0xFF, 0xD8]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if bytes.count > 12, Array(bytes[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        if bytes.count > 12, Array(bytes[4..<8]) == Array("ftyp".utf8) { return "image/avif" }
        return "application/octet-stream"
    }
}

/// What the loopback server saw on one path.
public struct RouteStatistics: Sendable, Equatable {
    /// Requests received.
    public var requests = 0
    /// Body bytes written to the network.
    public var bytesSent = 0
    /// Responses whose client went away before the body was sent in full.
    public var connectionsClosedEarly = 0
    /// 304 answers to conditional requests.
    public var notModified = 0
    /// Responses cut short or reset on purpose by an ``ServedRoute/interference``.
    public var faultsInjected = 0
    /// 206 answers with part of the body (``ServedRoute/acceptsRanges``).
    public var partialResponses = 0
    /// Header fields of the latest request, names lowercased.
    public var lastRequestHeaders: [String: String] = [:]

    public init() {}
}
