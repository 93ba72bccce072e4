import Configuration
import Foundation

extension ProxyConfiguration {
    /// imgproxy's switches for validators: `IMGPROXY_USE_ETAG` (the origin's tags, asked of the
    /// origin; `false`: none), `IMGPROXY_ETAG_BUSTER`, `IMGPROXY_USE_LAST_MODIFIED` (the
    /// origin's dates, asked of the origin; `false`: none), `IMGPROXY_LAST_MODIFIED_BUSTER`
    /// (an RFC 3339 time). Unset, Magpie's own validation stands (``AnswerValidation``).
    /// And `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`, the source's caching passed on, and thumbor's
    /// `SEND_IF_MODIFIED_LAST_MODIFIED_HEADERS` (answers dated by when their result was made).
    /// The last of these settings read wins where two speak of `Last-Modified`.
    mutating func readValidation(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        let etagBuster = settings.string(forKey: "imgproxy.etag.buster").flatMap { $0.isEmpty ? nil : $0 }
        if let buster = etagBuster {
            guard buster.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" }) else {
                throw Self.invalid("IMGPROXY_ETAG_BUSTER", "is printable ASCII without spaces or quotes (it goes inside a quoted ETag)")
            }
        }
        if let on = try Self.boolean(settings, "imgproxy.use.etag", "IMGPROXY_USE_ETAG") {
            validation.etags = on ? .origin(buster: etagBuster) : .none
        }
        var dateBuster: Date?
        if let text = settings.string(forKey: "imgproxy.last.modified.buster")?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let date = Self.rfc3339(text) else {
                throw Self.invalid("IMGPROXY_LAST_MODIFIED_BUSTER", "is an RFC 3339 time (2026-01-31T12:00:00Z); '\(text)' is not")
            }
            dateBuster = date
        }
        if let on = try Self.boolean(settings, "imgproxy.use.last.modified", "IMGPROXY_USE_LAST_MODIFIED") {
            validation.lastModified = on ? .origin(buster: dateBuster) : .none
        }
        // thumbor's: answers dated by when their result was made.
        if let on = try Self.boolean(settings, "send.if.modified.last.modified.headers", "SEND_IF_MODIFIED_LAST_MODIFIED_HEADERS") {
            validation.lastModified = on ? .resultMade : .none
        }
        if let on = try Self.boolean(settings, "imgproxy.cache.control.passthrough", "IMGPROXY_CACHE_CONTROL_PASSTHROUGH") {
            passesSourceCacheControl = on
        }
    }

    private static func rfc3339(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
