public import Foundation

/// Loads the original bytes of the URLs of one scheme. The pipeline holds one per scheme in
/// ``ImagePipeline/Configuration/sourceLoaders``: `http` and `https` are loaded over HTTP,
/// `data` by a ``DataURLLoader``, `file` by a ``FileSystemLoader`` when ``ImagePipeline/Configuration/allowsFileURLs`` is set,
/// `s3` by an ``S3Loader`` when registered, and any scheme by a loader of your own.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.sourceLoaders["local"] = FileSystemLoader(root: URL(filePath: "/srv/images"))
/// let pipeline = ImagePipeline(configuration: configuration)
/// let image = try await pipeline.image(for: URL(string: "local:///avatars/ada.jpg")!)
/// ```
///
/// What a loader returns is decoded, processed and cached like a download. The pipeline checks
/// the URL against its ``SourcePolicy`` before calling the loader (a policy that lists hosts
/// needs a prefix such as `local://` or `s3://bucket/` for URLs of other schemes), and a
/// cancelled load cancels the task calling it. A remote loader's bytes are kept in the disk
/// cache and revalidated, and its loads wait for a download slot.
public protocol SourceLoader: Sendable {
    /// Whether the sources are remote: their bytes are kept in the disk cache (and revalidated
    /// with ``SourceRequest/cached``), and loading them waits for one of
    /// ``ImagePipeline/Configuration/maximumConcurrentDownloads``. A folder on this machine is
    /// not remote: it is read when asked.
    var isRemote: Bool { get }

    /// The bytes `request.url` names, at most `request.limit` of them: more is
    /// ``MagpieError/responseTooLarge(limit:)``, nothing there is
    /// ``MagpieError/sourceNotFound(_:)``.
    func load(_ request: SourceRequest) async throws(MagpieError) -> SourceResponse
}

/// One load a ``SourceLoader`` is asked for.
public struct SourceRequest: Sendable {
    /// The source, after ``ImagePipeline/Configuration/requestModifier``.
    public let url: URL
    /// Header fields for the source (``ImageRequest/headers``, after the request modifier).
    public let headers: [String: String]
    /// Bytes the answer may have at most.
    public let limit: Int
    /// The validators of the bytes the disk cache holds, when the pipeline asks whether they
    /// are still current: answer ``SourceResponse/notModified(_:)`` if they are.
    public let cached: HTTPMetadata?

    /// How the pipeline downloads over HTTP, for loaders that reach their sources that way.
    let transport: DataLoader
    let sources: SourceRules
    let download: Download

    /// Tells the request's observers how many bytes have arrived, and of how many.
    public func reportProgress(received: Int, expected: Int?) {
        download.onEvent(.task(.progress(received: received, expected: expected)))
    }
}

/// What a ``SourceLoader`` answers.
public enum SourceResponse: Sendable {
    /// The source's bytes.
    case loaded(SourceData)
    /// The bytes in ``SourceRequest/cached`` are current; carries the source's validators and
    /// freshness.
    case notModified(HTTPMetadata)
}

/// What a ``SourceLoader`` found at a URL.
public struct SourceData: Sendable {
    /// The original bytes.
    public var bytes: [UInt8]
    /// Validators, type and freshness where the source has them; `nil` where it has none.
    public var metadata: HTTPMetadata?
    /// How many of the first bytes were kept from an earlier, broken-off load.
    var resumedFrom = 0

    public init(bytes: [UInt8], metadata: HTTPMetadata? = nil) {
        self.bytes = bytes
        self.metadata = metadata
    }
}
