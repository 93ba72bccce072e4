/// Turns encoded bytes into a ``DecodedImage``. ``VipsDecoder`` is the default; tests and
/// apps may provide their own.
///
/// Implementations are called on Magpie's decoding threads, never on Swift's cooperative pool,
/// and may block while they work.
public protocol ImageDecoding: Sendable {
    /// Decodes `data`, downsampling at load time to `thumbnail` when given. Must refuse, before
    /// decoding pixels, an image that declares more than `maximumPixels` pixels.
    func decode(_ data: [UInt8], thumbnail: ImageRequest.Thumbnail?, maximumPixels: Int) throws(MagpieError) -> DecodedImage

    /// Decodes what it can of the first part of an image, for progressive previews.
    func decodePreview(_ data: [UInt8], thumbnail: ImageRequest.Thumbnail?, maximumPixels: Int) -> DecodedImage?

    /// Decodes `data` as `options` say, every frame of an animation when
    /// ``DecodingOptions/decodesAllFrames`` is set. The pipeline calls this one. Decoders
    /// written before animations get a default that decodes the first frame.
    func decode(_ data: [UInt8], options: DecodingOptions) throws(MagpieError) -> DecodedImage
}

/// What a decode is asked for.
public struct DecodingOptions: Sendable, Hashable {
    /// The size the decode makes: every pixel, a thumbnail's box, a scale a resize leaves room
    /// for, or a layout's scaled size.
    public var target: DecodeTarget
    /// A still (or one frame) declaring more pixels is refused before decoding.
    public var maximumPixels: Int
    /// Decode every frame of an animated GIF or WebP; otherwise the first frame only.
    public var decodesAllFrames: Bool
    /// An animation with more frames is refused (or becomes its first frame, see
    /// ``firstFrameWhenTooLarge``) before any frame is decoded.
    public var maximumAnimationFrames: Int
    /// An animation whose frames hold more pixels together is refused (or becomes its first
    /// frame) before any frame is decoded.
    public var maximumAnimationPixels: Int
    /// Decode the first frame of an animation over the limits instead of refusing it.
    public var firstFrameWhenTooLarge: Bool
    /// Dots per inch for a vector source sized in physical units (``ImageRequest/vectorDPI``);
    /// `nil`, or a value that is not a positive number, draws at libvips' 72.
    public var vectorDPI: Double?
    /// A still with more than 8 bits a sample (a 16-bit PNG or TIFF) keeps 16 bits a sample
    /// (``DecodedImage/sampleDepth``) instead of being brought to 8; other images are 8 bits
    /// a sample either way.
    public var keepsHighDepth = false

    /// The box of a ``DecodeTarget/thumbnail(_:)`` target, or of a layout resolved to the size
    /// it scales to; setting it makes the target that thumbnail (or ``DecodeTarget/whole``).
    public var thumbnail: ImageRequest.Thumbnail? {
        get { target.box }
        set { target = newValue.map { .thumbnail($0) } ?? .whole }
    }

    /// Creates decoding options; by default the first frame, at full size.
    public init(
        target: DecodeTarget = .whole, maximumPixels: Int = 100_000_000, decodesAllFrames: Bool = false,
        maximumAnimationFrames: Int = 1000, maximumAnimationPixels: Int = 100_000_000, firstFrameWhenTooLarge: Bool = false
    ) {
        self.target = target
        self.maximumPixels = maximumPixels
        self.decodesAllFrames = decodesAllFrames
        self.maximumAnimationFrames = maximumAnimationFrames
        self.maximumAnimationPixels = maximumAnimationPixels
        self.firstFrameWhenTooLarge = firstFrameWhenTooLarge
    }

    /// Creates decoding options that shrink to `thumbnail`'s box while decoding (every pixel
    /// when `nil`).
    public init(
        thumbnail: ImageRequest.Thumbnail?, maximumPixels: Int = 100_000_000, decodesAllFrames: Bool = false,
        maximumAnimationFrames: Int = 1000, maximumAnimationPixels: Int = 100_000_000, firstFrameWhenTooLarge: Bool = false
    ) {
        self.init(
            target: thumbnail.map { .thumbnail($0) } ?? .whole, maximumPixels: maximumPixels, decodesAllFrames: decodesAllFrames,
            maximumAnimationFrames: maximumAnimationFrames, maximumAnimationPixels: maximumAnimationPixels,
            firstFrameWhenTooLarge: firstFrameWhenTooLarge)
    }
}

extension ImageDecoding {
    /// Decodes the first frame, with ``decode(_:thumbnail:maximumPixels:)``.
    public func decode(_ data: [UInt8], options: DecodingOptions) throws(MagpieError) -> DecodedImage {
        try decode(data, thumbnail: options.thumbnail, maximumPixels: options.maximumPixels)
    }

    /// Decodes what it can of the first part of an image, for progressive previews; `nil`
    /// when nothing useful can be shown yet. Decoders without preview support return `nil`.
    public func decodePreview(_ data: [UInt8], thumbnail: ImageRequest.Thumbnail?, maximumPixels: Int) -> DecodedImage? {
        nil
    }
}

extension DecodingOptions {
    /// The shim's density: 0 (libvips' own) unless `dpi` is a positive, finite number.
    static func shimDPI(_ dpi: Double?) -> Double {
        guard let dpi, dpi.isFinite, dpi > 0 else { return 0 }
        return dpi
    }
}
