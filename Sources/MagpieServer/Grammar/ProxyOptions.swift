public import Foundation
public import Magpie

/// What one proxy URL asks for, after its option segments and presets are read: the layout
/// (imgproxy's sizing, cropping, turning and canvases), the processors every syntax shares
/// (``Magpie/ProcessingOption``), and how the result is encoded and answered.
public struct ProxyOptions: Sendable, Hashable {
    /// The output format a URL asks for.
    public enum Format: Sendable, Hashable {
        /// Chosen from the client's `Accept`.
        case auto
        /// Chosen by the operator's rule from the client's `Accept` (thumbor's `AUTO_*`,
        /// imgproxy's `IMGPROXY_AUTO_*` and `IMGPROXY_ENFORCE_*`), else as the rule says.
        case automatic(AutomaticFormat)
        /// One of ``Magpie/ImageFormat/encodable``.
        case fixed(ImageFormat)
    }

    /// Size, crops, orientation and canvases.
    public var layout = Layout()
    /// Turn the source upright by its EXIF orientation before anything else (imgproxy's
    /// `auto_rotate`); off, the image is processed as its file stores it.
    public var autoRotates = true
    /// 1...100; `nil` uses the server's default.
    public var quality: Int?
    /// Quality for particular output formats, over ``quality``.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// Lower a lossy format's quality until the result fits in this many bytes.
    public var maximumBytes: Int?
    /// Write the source's EXIF Copyright, the only metadata kept (`keep_copyright`).
    public var keepsCopyright = false
    /// Keep a 16-bit source's 16 bits a sample where the output format holds them (PNG, TIFF)
    /// (imgproxy's `preserve_hdr`); `nil` leaves it to ``ProxyConfiguration/preservesHighDepth``.
    public var preservesHighDepth: Bool?
    /// Write an opaque PNG source as JPEG where no format is asked (thumbor's `AUTO_PNG_TO_JPG`).
    public var opaquePNGAsJPEG = false
    /// What a source in each format is written as where no format is asked (the grammar's rule:
    /// imgproxy keeps its preferred formats, thumbor keeps what it reads and writes TIFF as PNG).
    public var sourceFormats = EncodingRequest.webSourceFormats
    /// `nil` keeps the source's format where the output can be written in it.
    public var format: Format?
    /// Serve the first frame of an animation as a still.
    public var firstFrame = false
    /// The processors run after the layout's resize, before any background or watermark.
    public var filters = FilterChain()
    /// Flattens transparency onto this colour whatever the output format.
    public var background: Colour?
    /// The background's opacity, 0...1 (imgproxy's `background_alpha`): below 1, what was
    /// transparent stays that translucent in formats with alpha.
    public var backgroundAlpha = 1.0
    /// The animation frame served as a still, from 0 (imgproxy's `page`); `nil` keeps them all.
    public var page: Int?
    /// A mark laid over the result, last.
    public var watermark: WatermarkOptions?
    /// The nine-patch a frame filter draws around the result (thumbor's `frame(URL)`), fetched
    /// under the same source rules as any source; the filter itself is in ``filters``.
    public var frame: URL?
    /// Clockwise degrees the result is turned by after everything else (thumbor's `rotate`
    /// filter, which turns after the resize).
    public var turn = 0
    /// Formats of sources served as they are, unprocessed.
    public var skipProcessing: Set<ImageFormat> = []
    /// Serve the source as it is, whatever its format.
    public var raw = false
    /// The file name a browser saves the result under, without its extension.
    public var filename: String?
    /// Ask the browser to download rather than show the result.
    public var returnAttachment = false
    /// Seconds clients and caches may keep the answer (thumbor's `max_age`), over the server's;
    /// 0 asks them to check every time.
    public var maxAge: Int?
    /// Seconds since 1970 after which the URL is refused.
    public var expires: Int?
    /// The URL's own limits, below the operator's.
    public var limits = URLLimits()
    /// Only changes the URL, so caches in front hold it apart.
    public var cacheBuster: String?
    /// Dots per inch for an SVG source sized in physical units (thumbor's `SVG_DPI`); `nil`:
    /// libvips' 72, as imgproxy draws.
    public var vectorDPI: Double?

    /// Options that keep the source's size and format.
    public init() {}
}

extension ProxyOptions {
    /// The box (times pixel ratio and zoom) and the padding within `limits`, so a URL asking for
    /// more is refused before anything is fetched; both grammars check here.
    func checkSize(_ limits: ProcessingLimits) throws(ProxyURLError) {
        let padding = layout.padding
        guard Double(padding.left + padding.right) * layout.dpr <= Double(limits.maximumDimension),
            Double(padding.top + padding.bottom) * layout.dpr <= Double(limits.maximumDimension)
        else {
            throw .malformed("the padding would add more than \(limits.maximumDimension) pixels on a side")
        }
        let width = Int((Double(layout.width) * layout.dpr * layout.zoomX).rounded())
        let height = Int((Double(layout.height) * layout.dpr * layout.zoomY).rounded())
        guard width <= limits.maximumDimension, height <= limits.maximumDimension else {
            throw .malformed("the output would be \(width)x\(height) pixels; at most \(limits.maximumDimension) on a side")
        }
        guard width * height <= limits.maximumOutputPixels else {
            throw .malformed("the output would be \(width)x\(height) pixels; at most \(limits.maximumOutputPixels) in all")
        }
    }
}

extension ProxyOptions.Format {
    /// Whether the format depends on the client's `Accept`, so answers vary by it.
    var negotiates: Bool {
        switch self {
        case .auto, .automatic: true
        case .fixed: false
        }
    }
}

/// The processors a URL asks for beyond its layout, built once from its options, in the order
/// they run: imgproxy's in its fixed order whatever the URL's, thumbor's in the URL's. Two
/// chains are equal when their processors' identifiers are, which name what they make.
public struct FilterChain: Sendable, Hashable {
    /// In the order they run.
    public private(set) var processors: [any ImageProcessing] = []

    /// No processors.
    public init() {}

    var isEmpty: Bool { processors.isEmpty }

    /// Runs `processor` after those already in the chain.
    mutating func append(_ processor: any ImageProcessing) {
        processors.append(processor)
    }

    var identifiers: [String] { processors.map(\.identifier) }

    /// The chain with `patch` in every nine-patch frame (each written with a stand-in, which
    /// names it the same, until its patch is fetched).
    func framing(with patch: ImageProcessors.Watermark.Mark) -> FilterChain {
        var chain = self
        chain.processors = processors.map { processor in
            guard let frame = processor as? ImageProcessors.NinePatchFrame else { return processor }
            return ImageProcessors.NinePatchFrame(patch: patch, limits: frame.limits)
        }
        return chain
    }

    public static func == (left: FilterChain, right: FilterChain) -> Bool {
        left.identifiers == right.identifiers
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifiers)
    }
}

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
