import Magpie

/// Limits one URL asks for below the operator's (imgproxy's per-URL security options,
/// `max_src_resolution`, `max_src_file_size`, `max_animation_frames`,
/// `max_animation_frame_resolution` and `max_result_dimension`): each only where the operator
/// allows them, and never above the operator's own.
public struct URLLimits: Sendable, Hashable {
    /// Pixels of a still source, or of an animation's first frame.
    public var sourcePixels: Int?
    public var sourceBytes: Int?
    public var animationFrames: Int?
    /// Pixels of each frame of an animated source.
    public var framePixels: Int?
    /// The result's longer side; a larger result is scaled down to fit.
    public var resultDimension: Int?

    public init() {}

    /// Whether any limit on the source is set (the result's is laid apart).
    var limitsSource: Bool { sourcePixels != nil || sourceBytes != nil || animationFrames != nil || framePixels != nil }
}

/// Refuses a decoded source over a URL's own limits, as imgproxy's security checks do: run
/// first, so nothing is made from it. (The operator's limits were applied before decoding; the
/// source's bytes are checked by the proxy before the pipeline is asked, and are in the
/// identifier so a result made under one limit is not served under another.)
struct URLSourceCheck: ImageProcessing {
    let limits: URLLimits

    var identifier: String {
        "magpie.proxy.url-limits/1?pixels=\(limits.sourcePixels ?? 0)&bytes=\(limits.sourceBytes ?? 0)&frames=\(limits.animationFrames ?? 0)"
            + "&frame=\(limits.framePixels ?? 0)"
    }

    func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
        let pixels = image.sourceWidth * image.sourceHeight
        if let limit = limits.sourcePixels, pixels > limit {
            throw .imageTooLarge(width: image.sourceWidth, height: image.sourceHeight, limit: limit)
        }
        if image.frameCount > 1 {
            if let limit = limits.animationFrames, image.frameCount > limit {
                throw .animationTooLarge("the animation has \(image.frameCount) frames; this URL allows \(limit)")
            }
            if let limit = limits.framePixels, pixels > limit {
                throw .animationTooLarge("each frame has \(pixels) pixels; this URL allows \(limit)")
            }
        }
        return image
    }

    /// Reads sizes only: an image with 16 bits a sample passes as it is.
    var keepsHighDepth: Bool { true }
}
