public import Foundation

/// The HTTP request Magpie is about to send, as seen by
/// ``ImagePipeline/Configuration/requestModifier``: add auth headers, sign the URL.
public struct OutgoingRequest: Sendable {
    /// The URL to fetch. Changing it does not change the cache key.
    public var url: URL
    /// Header fields to send.
    public var headers: [String: String]

    /// Creates a request.
    public init(url: URL, headers: [String: String] = [:]) {
        self.url = url
        self.headers = headers
    }
}
