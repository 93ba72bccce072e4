import Foundation

/// The `Retry-After` header of a 429 or 503 response: how long the server asks clients to wait.
enum RetryAfter {
    /// The longest wait honoured; a server asking for more gets this, so a typo on its side
    /// cannot silence a URL for days.
    static let maximum: Duration = .seconds(3600)

    /// The wait `value` asks for: delay-seconds (`120`) or an HTTP date, measured from `now`.
    /// `nil` when the header is malformed or the moment has passed.
    static func wait(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        let seconds: Double
        if let delay = Int(text) {
            seconds = Double(delay)
        } else if let date = HTTPDate.parse(text) {
            seconds = date.timeIntervalSince(now)
        } else {
            return nil
        }
        guard seconds > 0 else { return nil }
        return min(maximum, .milliseconds(Int64(min(seconds, 1e9) * 1000)))
    }
}
