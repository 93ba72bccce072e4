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
