public import Foundation

/// Original bytes of an image with the HTTP metadata needed to revalidate them.
public struct CachedData: Sendable, Equatable {
    /// The cache key (the URL after the pipeline's key filter).
    public var key: String
    /// The payload as it was downloaded.
    public var data: [UInt8]
    /// What the server said about the payload.
    public var metadata: HTTPMetadata
    /// Whether it was read from the shared store (``SharedStore``: what a replica, perhaps
    /// another, wrote there) rather than this machine's own disk.
    public var isShared = false

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
    /// How the server let the response be cached, as a `Cache-Control` value: its own, or for
    /// one that sent only `Expires`, `max-age` to that date (counted from its arrival), `public`.
    /// What a proxy passes on when told to (imgproxy's `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`).
    public var cacheControl: String?
    /// When the bytes were made: the response's `Date`; for an encoded result Magpie keeps,
    /// when it was encoded.
    public var date: Date?
    /// The URLs the request was redirected to, in order: the last one served the bytes. Kept so
    /// that a load under a ``SourcePolicy`` refuses cached bytes that came through a host the
    /// policy does not allow. Entries written before Magpie recorded redirects have none.
    public var redirects: [URL]

    /// Creates metadata.
    public init(
        etag: String? = nil, lastModified: String? = nil, contentType: String? = nil, freshUntil: Date? = nil, cacheControl: String? = nil,
        date: Date? = nil, redirects: [URL] = []
    ) {
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.freshUntil = freshUntil
        self.cacheControl = cacheControl
        self.date = date
        self.redirects = redirects
    }

    private enum CodingKeys: String, CodingKey {
        case etag, lastModified, contentType, freshUntil, cacheControl, date, redirects
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        etag = try container.decodeIfPresent(String.self, forKey: .etag)
        lastModified = try container.decodeIfPresent(String.self, forKey: .lastModified)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
        freshUntil = try container.decodeIfPresent(Date.self, forKey: .freshUntil)
        cacheControl = try container.decodeIfPresent(String.self, forKey: .cacheControl)
        date = try container.decodeIfPresent(Date.self, forKey: .date)
        redirects = try container.decodeIfPresent([URL].self, forKey: .redirects) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(etag, forKey: .etag)
        try container.encodeIfPresent(lastModified, forKey: .lastModified)
        try container.encodeIfPresent(contentType, forKey: .contentType)
        try container.encodeIfPresent(freshUntil, forKey: .freshUntil)
        try container.encodeIfPresent(cacheControl, forKey: .cacheControl)
        try container.encodeIfPresent(date, forKey: .date)
        if !redirects.isEmpty { try container.encode(redirects, forKey: .redirects) }
    }

    /// Whether a conditional request can be made for these bytes.
    public var canRevalidate: Bool { etag != nil || lastModified != nil }
}

/// How long a response stays fresh, from `Cache-Control` (`max-age`, `no-cache`, `no-store`)
/// or else `Expires` relative to `Date`.
enum HTTPFreshness {
    /// The response's caching as a `Cache-Control` value (``HTTPMetadata/cacheControl``).
    static func cacheControl(headers: [(name: String, value: String)], receivedAt now: Date) -> String? {
        func has(_ name: String) -> String? { headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
        if let own = has("Cache-Control") { return own }
        guard has("Expires") != nil, let until = freshUntil(headers: headers, receivedAt: now) else { return nil }
        return "max-age=\(max(0, Int(until.timeIntervalSince(now).rounded()))), public"
    }

    static func freshUntil(headers: [(name: String, value: String)], receivedAt now: Date) -> Date? {
        func value(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        if let cacheControl = value("Cache-Control") {
            let directives = cacheControl.lowercased().split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            if directives.contains("no-cache") || directives.contains("no-store") { return now }
            for directive in directives where directive.hasPrefix("max-age=") {
                let number = directive.dropFirst("max-age=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                if let seconds = Int(number) {
                    let age = value("Age").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
                    return now.addingTimeInterval(TimeInterval(max(0, seconds - age)))
                }
            }
        }
        if let expires = value("Expires") {
            // An unparseable Expires (often "0") means already expired.
            guard let expiry = HTTPDate.parse(expires) else { return now }
            let serverNow = value("Date").flatMap(HTTPDate.parse) ?? now
            return now.addingTimeInterval(expiry.timeIntervalSince(serverNow))
        }
        return nil
    }
}
