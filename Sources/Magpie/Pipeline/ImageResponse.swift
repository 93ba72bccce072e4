/// Where a response's image came from.
public enum ImageSource: String, Sendable, Hashable {
    /// The memory cache: no decoding, no I/O.
    case memory
    /// The disk cache: decoded from stored bytes.
    case disk
    /// Downloaded (including a 304 revalidation that kept the cached bytes).
    case network
}

/// A loaded image and how it was obtained.
public struct ImageResponse: Sendable {
    /// The decoded image.
    public let image: DecodedImage
    /// The request that produced it.
    public let request: ImageRequest
    /// Where the image came from.
    public let source: ImageSource
}

/// Original bytes of an image, without decoding (``ImagePipeline/data(for:)``).
public struct DataResponse: Sendable {
    /// The bytes as the server sent them.
    public let data: [UInt8]
    /// The response's `Content-Type`, if known.
    public let contentType: String?
    /// Where the bytes came from (never ``ImageSource/memory``).
    public let source: ImageSource
}
