/// A decoded bitmap: 8-bit RGBA in sRGB (a source with another embedded colour profile, such as
/// a phone's Display P3, is converted), straight (not premultiplied) alpha, rows packed top to
/// bottom, already turned upright according to its EXIF orientation.
///
/// An animation holds every frame: ``pixels`` has ``frameCount`` frames of `width` by `height`
/// stacked top to bottom, so code written for stills sees the first frame. ``animation`` has
/// the timing; ``frame(_:)`` copies one frame out as a still.
public struct DecodedImage: Sendable {
    /// Width in pixels, after orientation; for an animation, the canvas width.
    public let width: Int
    /// Height in pixels, after orientation; for an animation, the canvas (one frame's) height.
    public let height: Int
    /// Bytes from one row to the next (`width * 4`, or `width * 8` with 16 bits a sample).
    public var bytesPerRow: Int { width * 4 * sampleDepth.rawValue }
    /// The pixels, `frameCount * height * bytesPerRow` bytes: R, G, B, A for each pixel, the
    /// frames one after another; a byte a sample, or with ``sampleDepth`` `.sixteen`, a
    /// `UInt16` a sample in the machine's byte order.
    public let pixels: [UInt8]
    /// Bits a sample: 8, unless a request kept a deeper source's depth
    /// (``ImageRequest/Options/keepsHighDepth``).
    public let sampleDepth: SampleDepth
    /// The frames' timing and loop count; `nil` for a still.
    public let animation: Animation?
    /// Why an animated source was decoded as its first frame only; `nil` when every frame was
    /// decoded or the source is a still.
    public let firstFrameReason: FirstFrameReason?
    /// The format the image was decoded from.
    public let sourceFormat: ImageFormat
    /// Width and height as the file declared them, before orientation and downsampling.
    public let sourceWidth: Int
    /// See ``sourceWidth``.
    public let sourceHeight: Int
    /// The EXIF orientation the decoder turned the image upright from, 1...8 (1: none, or a HEIF,
    /// which libheif turns by its own transforms).
    public let sourceOrientation: Int
    /// The whole upright image's size when the decoder decoded it at a reduced scale for the
    /// resize or layout that follows (``DecodeTarget/reduced(toward:)``,
    /// ``DecodeTarget/scaled(to:whole:)``); `nil` when the pixels are the
    /// image at the size it was decoded to. The resize sizes its output from it.
    public let fullSize: Size?
    /// The source's EXIF Copyright, written again only when an encoding keeps it
    /// (``EncodingRequest/keepsCopyright``).
    public let copyright: String?

    /// A width and a height in pixels.
    public struct Size: Sendable, Hashable {
        public let width: Int
        public let height: Int

        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// Bits a sample of a ``DecodedImage``; the raw value is bytes a sample.
    public enum SampleDepth: Int, Sendable, Hashable {
        /// A byte a sample: 0...255.
        case eight = 1
        /// A `UInt16` a sample, in the machine's byte order: 0...65535.
        case sixteen = 2
    }

    /// Creates an image from RGBA pixels: a still when `animation` is `nil`, otherwise one
    /// frame per entry of its ``Animation/frameDelays``. `pixels.count` must be
    /// `width * height * 4` times the number of frames, times 2 for 16 bits a sample (stills
    /// only).
    public init(
        width: Int, height: Int, pixels: [UInt8], sourceFormat: ImageFormat = .unknown,
        sourceWidth: Int? = nil, sourceHeight: Int? = nil, animation: Animation? = nil,
        firstFrameReason: FirstFrameReason? = nil, fullSize: Size? = nil, copyright: String? = nil, sourceOrientation: Int = 1,
        sampleDepth: SampleDepth = .eight
    ) {
        let frames = animation?.frameCount ?? 1
        precondition(frames > 0, "an animation has at least one frame")
        precondition(sampleDepth == .eight || frames == 1, "only stills have 16 bits a sample")
        precondition(pixels.count == width * height * 4 * sampleDepth.rawValue * frames, "pixels must hold width * height * 4 samples per frame")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.sampleDepth = sampleDepth
        self.sourceFormat = sourceFormat
        self.sourceWidth = sourceWidth ?? width
        self.sourceHeight = sourceHeight ?? height
        self.animation = animation
        self.firstFrameReason = firstFrameReason
        self.fullSize = fullSize
        self.copyright = copyright
        self.sourceOrientation = (1...8).contains(sourceOrientation) ? sourceOrientation : 1
    }

    /// Memory the pixels take, every frame counted: the image's cost in the memory cache.
    public var byteCount: Int { pixels.count }

    /// Number of frames: 1 for a still.
    public var frameCount: Int { animation?.frameCount ?? 1 }

    /// Whether the image has more than one frame.
    public var isAnimated: Bool { frameCount > 1 }

    /// Frame `index` as a still (a copy of its pixels).
    public func frame(_ index: Int) -> DecodedImage {
        precondition(index >= 0 && index < frameCount, "frame \(index) of \(frameCount)")
        guard isAnimated else { return self }
        let size = width * height * 4
        return DecodedImage(
            width: width, height: height, pixels: Array(pixels[index * size..<(index + 1) * size]),
            sourceFormat: sourceFormat, sourceWidth: sourceWidth, sourceHeight: sourceHeight, copyright: copyright,
            sourceOrientation: sourceOrientation)
    }

    /// The image made by `transform`ing each frame as a still, with this image's timing: the
    /// way to apply code written for stills to an animation. Every frame must come out the
    /// same size. A still is passed to `transform` as it is.
    public func mapFrames(
        _ transform: (DecodedImage) throws(MagpieError) -> DecodedImage
    ) throws(MagpieError) -> DecodedImage {
        guard isAnimated else { return try transform(self) }
        var pixels: [UInt8] = []
        var size: (width: Int, height: Int)?
        for index in 0..<frameCount {
            let frame = try transform(frame(index))
            guard frame.frameCount == 1, size.map({ $0 == (frame.width, frame.height) }) ?? true else {
                throw .processingFailed(processor: "mapFrames", reason: "frame \(index) came out \(frame.width)x\(frame.height) with \(frame.frameCount) frames; every frame must be one still of the same size")
            }
            if size == nil {
                size = (frame.width, frame.height)
                pixels.reserveCapacity(frame.pixels.count * frameCount)
            }
            pixels += frame.pixels
        }
        let (width, height) = size ?? (width, height)
        return DecodedImage(
            width: width, height: height, pixels: pixels, sourceFormat: sourceFormat, sourceWidth: sourceWidth,
            sourceHeight: sourceHeight, animation: animation, firstFrameReason: firstFrameReason, copyright: copyright,
            sourceOrientation: sourceOrientation)
    }

    /// The RGBA value at `(x, y)` of the first frame, in 8 bits a sample whatever
    /// ``sampleDepth`` is.
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        let offset = y * bytesPerRow + x * 4 * sampleDepth.rawValue
        guard sampleDepth == .sixteen else { return (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3]) }
        let sample = { (index: Int) in Self.narrowed(self.sample16(at: offset + 2 * index)) }
        return (sample(0), sample(1), sample(2), sample(3))
    }

    /// Why an animated source became a still.
    public enum FirstFrameReason: String, Sendable, Hashable {
        /// The request asked for the first frame (``ImageRequest/Options/firstFrameOnly``).
        case requested
        /// The animation was over ``ImagePipeline/Configuration/maximumAnimationFrames`` or
        /// ``ImagePipeline/Configuration/maximumAnimationPixels`` and the request allowed its
        /// first frame instead (``ImageRequest/Options/firstFrameWhenTooLarge``).
        case overLimit
        /// libvips 8.14 cannot play this format's animations (APNG, AVIF and HEIF sequences).
        case formatNotAnimated
    }
}

extension DecodedImage: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        let frames = isAnimated ? ", \(frameCount) frames" : ""
        return "DecodedImage(\(width)x\(height)\(frames) RGBA\(sampleDepth == .sixteen ? 16 : 8) from \(sourceFormat.rawValue) \(sourceWidth)x\(sourceHeight))"
    }

    public var debugDescription: String { description }
}

extension DecodedImage {
    /// This image with 8 bits a sample: itself when it has them, otherwise each 16-bit sample's
    /// high byte, as libvips narrows RGB16 to sRGB (so an image narrowed here equals one
    /// decoded at 8 bits), which also undoes widening by 257. What every step that works in 8
    /// bits gets.
    public func narrowedToEightBits() -> DecodedImage {
        guard sampleDepth == .sixteen else { return self }
        let count = pixels.count / 2
        let narrow = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            pixels.withUnsafeBytes { bytes in
                for index in 0..<count {
                    buffer[index] = Self.narrowed(bytes.loadUnaligned(fromByteOffset: 2 * index, as: UInt16.self))
                }
            }
            initialized = count
        }
        return DecodedImage(
            width: width, height: height, pixels: narrow, sourceFormat: sourceFormat, sourceWidth: sourceWidth,
            sourceHeight: sourceHeight, animation: animation, firstFrameReason: firstFrameReason, fullSize: fullSize,
            copyright: copyright, sourceOrientation: sourceOrientation)
    }

    /// The 16-bit sample (machine byte order) at byte `offset` of ``pixels``.
    func sample16(at offset: Int) -> UInt16 {
        pixels.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
    }

    static func narrowed(_ sample: UInt16) -> UInt8 {
        UInt8(truncatingIfNeeded: sample >> 8)
    }
}
