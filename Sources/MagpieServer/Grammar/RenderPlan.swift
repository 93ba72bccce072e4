import Foundation
import Magpie

/// How the options become the pipeline's request: one ``Magpie/ImageProcessors/Layout`` (which
/// lets the decoder shrink large JPEGs and WebPs on load, so a 256 px thumbnail of a 12 MP photo
/// never exists at full size) with the shared processors as its filters, then a flatten when a
/// background is asked for, then the watermark.
struct RenderPlan: Sendable {
    let processors: [any ImageProcessing]
    let firstFrameOnly: Bool
    /// Laid last, once its mark is known (``imageRequest(for:mark:)``).
    let watermark: WatermarkOptions?
    let offsetScale: Double
    let vectorDPI: Double?
    /// Whether a 16-bit source keeps its depth (``ProxyOptions/preservesHighDepth``, else the
    /// operator's ``ProxyConfiguration/preservesHighDepth``).
    let keepsHighDepth: Bool
    /// What the plan was made from, to make it again with a frame's patch.
    private let options: ProxyOptions
    private let limits: ProcessingLimits
    private let watermarkOpacity: Double

    /// `watermarkOpacity` is the operator's, multiplying the URL's; `preservesHighDepth` the
    /// operator's default for ``ProxyOptions/preservesHighDepth``.
    init(_ options: ProxyOptions, limits: ProcessingLimits, watermarkOpacity: Double = 1, preservesHighDepth: Bool = false) {
        let filters = options.filters.processors
        var processors: [any ImageProcessing] = []
        if options.limits.limitsSource { processors.append(URLSourceCheck(limits: options.limits)) }
        if !options.autoRotates { processors.append(ImageProcessors.StoredOrientation()) }
        // The first frame needs no processor: the decoder reads only it.
        if let page = options.page, page > 0 { processors.append(ImageProcessors.Frame(page)) }
        var layout = options.layout
        // The result as a whole, canvases and padding with it, each part rounded as imgproxy does.
        layout.maximumResultSide = options.limits.resultDimension
        if layout != Layout() || !filters.isEmpty {
            processors.append(ImageProcessors.Layout(layout, filters: filters, limits: limits))
        }
        if options.turn != 0, let turn = ImageProcessors.Rotate(degrees: options.turn) {
            processors.append(turn)
        }
        if var background = options.background {
            background.alpha = UInt8((options.backgroundAlpha * 255).rounded())
            processors.append(ImageProcessors.Flatten(background: background))
        }
        self.processors = processors
        firstFrameOnly = options.firstFrame || options.page == 0
        var watermark = options.watermark
        watermark?.opacity *= watermarkOpacity
        self.watermark = watermark
        offsetScale = options.layout.dpr
        vectorDPI = options.vectorDPI
        keepsHighDepth = options.preservesHighDepth ?? preservesHighDepth
        self.options = options
        self.limits = limits
        self.watermarkOpacity = watermarkOpacity
    }

    /// The plan with the frame's nine-patch in place of the stand-in it was read with.
    func framed(with patch: ImageProcessors.Watermark.Mark) -> RenderPlan {
        var framed = options
        framed.filters = options.filters.framing(with: patch)
        return RenderPlan(framed, limits: limits, watermarkOpacity: watermarkOpacity, preservesHighDepth: keepsHighDepth)
    }

    /// What the pipeline is asked to load for `source`, with `mark` laid as ``watermark`` says.
    func imageRequest(for source: URL, mark: ImageProcessors.Watermark.Mark? = nil) -> ImageRequest {
        var processors = processors
        if let watermark, let mark {
            processors.append(
                ImageProcessors.Watermark(
                    mark: mark, opacity: watermark.opacity, position: watermark.position, scaleWidth: watermark.scaleWidth,
                    scaleHeight: watermark.scaleHeight, offsetScale: offsetScale))
        }
        var request = ImageRequest(url: source, processors: processors, options: firstFrameOnly ? [.firstFrameOnly] : [])
        if keepsHighDepth { request.options.insert(.keepsHighDepth) }
        request.vectorDPI = vectorDPI
        return request
    }
}
