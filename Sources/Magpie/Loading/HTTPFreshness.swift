import Foundation

/// How long a response stays fresh, from `Cache-Control` (`max-age`, `no-cache`, `no-store`)
/// or else `Expires` relative to `Date`.
enum HTTPFreshness {
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
            guard let expiry = parseHTTPDate(expires) else { return now }
            let serverNow = value("Date").flatMap(parseHTTPDate) ?? now
            return now.addingTimeInterval(expiry.timeIntervalSince(serverNow))
        }
        return nil
    }

    /// Parses the IMF-fixdate form of RFC 9110 (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func parseHTTPDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }
}
