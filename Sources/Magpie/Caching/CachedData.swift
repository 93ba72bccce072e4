public import Foundation

/// Original bytes of an image with the HTTP metadata needed to revalidate them.
public struct CachedData: Sendable, Equatable {
    /// The cache key (the URL after the pipeline's key filter).
    public var key: String
    /// The payload as it was downloaded.
    public var data: [UInt8]
    /// What the server said about the payload.
    public var metadata: HTTPMetadata

    /// Creates an entry.
    public init(key: String, data: [UInt8], metadata: HTTPMetadata) {
        self.key = key
        self.data = data
        self.metadata = metadata
    }
}

/// The parts of an HTTP response that matter for caching.
public struct HTTPMetadata: Sendable, Equatable, Codable {
    /// `ETag`, sent back as `If-None-Match`.
    public var etag: String?
    /// `Last-Modified`, sent back verbatim as `If-Modified-Since`.
    public var lastModified: String?
    /// `Content-Type`.
    public var contentType: String?
    /// Until when the response is fresh, from `Cache-Control: max-age` or `Expires`.
    public var freshUntil: Date?

    /// Creates metadata.
    public init(etag: String? = nil, lastModified: String? = nil, contentType: String? = nil, freshUntil: Date? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.freshUntil = freshUntil
    }

    /// Whether a conditional request can be made for these bytes.
    public var canRevalidate: Bool { etag != nil || lastModified != nil }
}
