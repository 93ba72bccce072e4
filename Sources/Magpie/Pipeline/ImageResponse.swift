/// Where a response's image came from.
public enum ImageSource: String, Sendable, Hashable {
    /// The memory cache: no decoding, no I/O.
    case memory
    /// The disk cache: decoded from stored bytes (the original or a processed variant).
    case disk
    /// Downloaded (including a 304 revalidation that kept the cached bytes).
    case network
}

/// A loaded image and how it was obtained.
public struct ImageResponse: Sendable {
    /// The image and what is known about it.
    public let container: ImageContainer
    /// The request that produced it.
    public let request: ImageRequest
    /// Where the image came from.
    public let source: ImageSource

    /// The decoded (and processed) image.
    public var image: DecodedImage { container.image }

    /// Creates a response.
    public init(container: ImageContainer, request: ImageRequest, source: ImageSource) {
        self.container = container
        self.request = request
        self.source = source
    }

    /// Creates a response for an image with no other information.
    public init(image: DecodedImage, request: ImageRequest, source: ImageSource) {
        self.init(container: ImageContainer(image: image), request: request, source: source)
    }
}

/// Original bytes of an image, without decoding (``ImagePipeline/data(for:)``).
public struct DataResponse: Sendable {
    /// The bytes as the server sent them.
    public let data: [UInt8]
    /// The response's `Content-Type`, if known.
    public let contentType: String?
    /// Where the bytes came from (never ``ImageSource/memory``).
    public let source: ImageSource
    /// The origin's validators (`ETag`, `Last-Modified`) and freshness, for HTTP(S) sources.
    public let metadata: HTTPMetadata?
    /// How long the fetch waited for a download slot and took.
    package var timings = StageTimings()
}
