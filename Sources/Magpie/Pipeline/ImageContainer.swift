/// What flows through a pipeline's stages: an image plus what is known about it.
///
/// Previews decoded from part of a download are containers too (``isPreview`` is `true`), so
/// they pass through the request's processors like the final image does.
public struct ImageContainer: Sendable {
    /// The pixels.
    public var image: DecodedImage
    /// The format the original bytes were in.
    public var format: ImageFormat
    /// Whether this is a lower-quality image decoded from part of the body.
    public var isPreview: Bool
    /// The original bytes, for requests with ``ImageRequest/Options/returnsOriginalData``;
    /// otherwise `nil`.
    public var data: [UInt8]?

    /// Creates a container.
    public init(image: DecodedImage, format: ImageFormat? = nil, isPreview: Bool = false, data: [UInt8]? = nil) {
        self.image = image
        self.format = format ?? image.sourceFormat
        self.isPreview = isPreview
        self.data = data
    }

    /// The same container holding another image, as a processor's output.
    func replacingImage(_ image: DecodedImage) -> ImageContainer {
        var copy = self
        copy.image = image
        return copy
    }
}
