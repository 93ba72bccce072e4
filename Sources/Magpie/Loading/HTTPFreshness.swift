import Foundation

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
