public import Foundation

/// Loads the original bytes of the URLs of one scheme, for the schemes the pipeline does not
/// load over HTTP: register one in ``ImagePipeline/Configuration/sourceLoaders`` under its
/// scheme.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.sourceLoaders["local"] = FileSystemLoader(root: URL(filePath: "/srv/images"))
/// let pipeline = ImagePipeline(configuration: configuration)
/// let image = try await pipeline.image(for: URL(string: "local:///avatars/ada.jpg")!)
/// ```
///
/// What a loader returns is decoded, processed and cached like a download; the pipeline checks
/// the URL against its ``SourcePolicy`` before calling it (a policy that lists hosts needs a
/// prefix such as `local://` for URLs without one). Cancelling a load cancels the task calling
/// the loader.
public protocol SourceLoader: Sendable {
    /// The bytes `url` names, at most `limit` of them: more is
    /// ``MagpieError/responseTooLarge(limit:)``, nothing there is
    /// ``MagpieError/sourceNotFound(_:)``.
    func load(_ url: URL, limit: Int) async throws(MagpieError) -> SourceData
}

/// What a ``SourceLoader`` found at a URL.
public struct SourceData: Sendable {
    /// The original bytes.
    public var bytes: [UInt8]
    /// Validators, type and freshness where the source has them; `nil` where it has none.
    public var metadata: HTTPMetadata?

    public init(bytes: [UInt8], metadata: HTTPMetadata? = nil) {
        self.bytes = bytes
        self.metadata = metadata
    }
}
