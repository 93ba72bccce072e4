import Foundation

/// One load's side of a download: the URL its errors name, the key a broken-off body is kept
/// under, and where progress and the server's hints go.
struct Download: Sendable {
    /// The URL the request asked for (`s3://bucket/key` when the bytes come from an endpoint).
    let url: URL
    /// The key a body that breaks off is kept under; `nil` keeps none.
    let resumeKey: String?
    /// Whether a copy of the body is offered at a quarter, half and three quarters.
    let previews: Bool
    let now: @Sendable () -> Date
    /// A 429 or 503 said when to ask again.
    let onRetryAfter: @Sendable (Duration) -> Void
    let onEvent: @Sendable (WorkEvent) -> Void
}
