/// A transformation from one image to another: resize, crop, round, blur.
///
/// A processor's ``identifier`` names its output, so it enters every cache key and every key
/// under which work is shared: two processors with equal identifiers must produce the same
/// pixels from the same input. Put a version in it (`"magpie.resize/1?..."`) and change the
/// version whenever the output changes, so stale variants on disk are not served.
///
/// `process` runs on Magpie's decoding threads, never on Swift's cooperative pool, and may
/// block while it works.
///
/// An animation arrives whole: ``DecodedImage/pixels`` holds every frame, and the result
/// should too, with the same ``DecodedImage/animation`` (the built-in processors apply one
/// geometry to every frame). Code written for stills can use ``DecodedImage/mapFrames(_:)``,
/// or ``ImageProcessors/Anonymous``, which does that for you.
public protocol ImageProcessing: Sendable {
    /// A stable, versioned string naming the output, for example `"magpie.blur/1?sigma=2"`.
    var identifier: String { get }

    /// Transforms `image`. Throw ``MagpieError/processingFailed(processor:reason:)`` when the
    /// input cannot be processed. The pipeline passes images with 8 bits a sample (an image
    /// that kept 16 is narrowed first, ``DecodedImage/narrowedToEightBits()``) unless the
    /// processor ``keepsHighDepth``; the built-in processors narrow any other themselves.
    func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage

    /// Whether the processor works on images with 16 bits a sample and keeps them; the
    /// pipeline narrows an image to 8 bits before any other. `false` unless a processor says.
    var keepsHighDepth: Bool { get }
}

extension ImageProcessing {
    public var keepsHighDepth: Bool { false }
}

extension ImageProcessing {
    /// Runs the processor as the pipeline does: an image that kept 16 bits a sample is
    /// narrowed first unless the processor keeps them, and a failure that does not name its
    /// processor is named as this one's; a processor that refuses its input as too large (as a
    /// decoder would) is passed on as it said. A layout is given the plan its decode was
    /// resolved by (`planned`), if there was one.
    func run(on image: DecodedImage, planned: LayoutPlan? = nil) throws(MagpieError) -> DecodedImage {
        do {
            let input = keepsHighDepth ? image : image.narrowedToEightBits()
            if let planned, let layout = self as? ImageProcessors.Layout { return try layout.process(input, planned: planned) }
            return try process(input)
        } catch {
            switch error {
            case .processingFailed, .outputTooLarge, .cancelled, .imageTooLarge, .animationTooLarge: throw error
            default: throw .processingFailed(processor: identifier, reason: error.description)
            }
        }
    }
}
