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

    // MARK: - Animation

    /// The frames' timing and loop count; `nil` for a still.
    public var animation: Animation? { image.animation }

    /// Number of frames: 1 for a still.
    public var frameCount: Int { image.frameCount }

    /// The size every frame is drawn at.
    public var canvasSize: (width: Int, height: Int) { (image.width, image.height) }

    /// Every frame as a still with the time it shows (after the 10 ms → 100 ms rule). Each
    /// frame is a copy: for drawing one frame at a time, use ``frame(at:)``.
    public var frames: [Frame] {
        guard let animation else { return [Frame(image: image, duration: .zero)] }
        return zip(0..<frameCount, animation.frameDurations).map { Frame(image: image.frame($0), duration: $1) }
    }

    /// The frame on screen `time` after the animation started (the image itself for a still).
    public func frame(at time: Duration) -> DecodedImage {
        guard let animation else { return image }
        return image.frame(animation.frameIndex(at: time))
    }

    /// One frame of an animation.
    public struct Frame: Sendable {
        /// The frame's pixels, canvas-sized.
        public let image: DecodedImage
        /// How long it shows when played; zero for a still.
        public let duration: Duration
    }

    /// The same container holding another image, as a processor's output.
    func replacingImage(_ image: DecodedImage) -> ImageContainer {
        var copy = self
        copy.image = image
        return copy
    }
}
