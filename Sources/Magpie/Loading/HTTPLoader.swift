public import Foundation

/// The `http` and `https` sources: downloaded with the pipeline's HTTP client, redirects
/// followed and each hop checked against the source policy, cached bytes revalidated, broken-off
/// bodies resumed.
struct HTTPLoader: SourceLoader {
    var isRemote: Bool { true }

    func load(_ request: SourceRequest) async throws(MagpieError) -> SourceResponse {
        let outgoing = OutgoingRequest(url: request.url, headers: request.headers)
        return try await request.transport.load(outgoing, to: .source(request.sources), revalidating: request.cached, for: request.download)
            .sourceResponse { status, _ in .httpStatus(status, request.download.url) }
    }
}

extension DataLoader.Outcome {
    /// The answer as a ``SourceLoader`` gives it; a refusal becomes the loader's error.
    func sourceResponse(refusal: (_ status: Int, _ excerpt: [UInt8]) -> MagpieError) throws(MagpieError) -> SourceResponse {
        switch self {
        case .downloaded(let bytes, let metadata, let resumedFrom):
            var data = SourceData(bytes: bytes, metadata: metadata)
            data.resumedFrom = resumedFrom
            return .loaded(data)
        case .notModified(let metadata):
            return .notModified(metadata)
        case .refused(let status, _, let excerpt):
            throw refusal(status, excerpt)
        }
    }
}

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
