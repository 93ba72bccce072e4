/// The size and shape of an output, in the terms imgproxy's URLs use: a box and how the image
/// meets it, a crop before and after scaling, orientation, and canvases around the result. One
/// description serves every syntax; ``LayoutPlan`` turns it into pixel sizes once the image's
/// size is known, and ``ImageProcessors/Layout`` carries it out.
public struct Layout: Sendable, Hashable {
    /// How the image is brought to the box.
    public enum Resizing: String, Sendable, Hashable, CaseIterable {
        /// Inside the box, aspect ratio kept.
        case fit
        /// Covers the box, then cropped to it by ``Layout/gravity``.
        case fill
        /// As ``fill``, but an image smaller than the box is cropped to the box's aspect ratio
        /// rather than to its size.
        case fillDown = "fill-down"
        /// Stretched to the box.
        case force
        /// ``fill`` when the image and the box are both landscape or both portrait, else ``fit``.
        case auto
        /// Covers the box, not cropped (thumbor's `full-fit-in`).
        case cover
    }

    /// An area cut from the image before it is scaled.
    public struct Crop: Sendable, Hashable {
        /// Pixels when at least 1, a fraction of the image's side when below; 0 keeps the side.
        public var width: Double
        public var height: Double
        /// Where the area is; `nil` uses ``Layout/gravity``.
        public var placement: Placement?

        public init(width: Double, height: Double, placement: Placement? = nil) {
            self.width = width
            self.height = height
            self.placement = placement
        }
    }

    /// Space added around the result, in pixels before the pixel ratio.
    public struct Insets: Sendable, Hashable {
        public var top = 0, right = 0, bottom = 0, left = 0

        public init(top: Int = 0, right: Int = 0, bottom: Int = 0, left: Int = 0) {
            self.top = top
            self.right = right
            self.bottom = bottom
            self.left = left
        }

        var isEmpty: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }
    }

    /// Borders cut away first, before anything is sized.
    public var trim: ImageProcessors.Trim?
    /// The box; 0 leaves a side to the other and the aspect ratio (both 0: the image's size).
    public var width = 0
    public var height = 0
    /// The box's side is the image's own after ``crop`` (thumbor's `orig`), whatever ``width``
    /// or ``height`` says.
    public var widthFromImage = false
    public var heightFromImage = false
    /// The box's shape, width over height: a side the box leaves at 0 is made from the other so
    /// that the box has this shape, and with both at 0 the box is the largest of this shape inside
    /// the (cropped) image. ``resizing`` then brings the image to it. `nil`: the box as given.
    public var aspectRatio: Double?
    public var resizing = Resizing.fit
    /// Turns the box to the image's orientation first: a landscape box for a landscape image
    /// (thumbor's `adaptive-fit-in`).
    public var adaptive = false
    /// The result is at least this wide (or high), whatever the box says.
    public var minWidth = 0
    public var minHeight = 0
    /// Multiplies the box (and the scale) on each axis.
    public var zoomX = 1.0
    public var zoomY = 1.0
    /// Device pixel ratio: multiplies the box, offsets in pixels and the padding.
    public var dpr = 1.0
    /// Whether an image smaller than the box is scaled up.
    public var enlarge = false
    /// A source larger than this is taken at a smaller size before anything else, its crop
    /// with it (thumbor's `MAX_WIDTH` and `MAX_HEIGHT`, by thumbor's rule: shrunk to the side it
    /// exceeds more, 0 for no limit on a side). `nil`: none.
    public var sourceLimit: DecodedImage.Size?
    /// The longest side of the result, its canvases and padding with it (imgproxy's
    /// `max_result_dimension`): a larger result is made smaller as a whole. `nil`: no limit.
    public var maximumResultSide: Int?
    /// How a resized side's fraction of a pixel is rounded, by whether the side shrinks or grows.
    public var sideRounding = SideRounding()
    /// Whose arithmetic turns the box into pixels: imgproxy's by default.
    public var arithmetic = Arithmetic.imgproxy
    /// How far the decoder may shrink the image before the layout scales it.
    public var decoderShrink = DecoderShrink.toSize

    /// The two ways of turning a box into pixel sizes that users of the anchors rely on.
    public enum Arithmetic: String, Sendable, Hashable {
        /// imgproxy's (`calcScale`, `calcPosition`): scales are shrink factors (the image's side
        /// over the box's), a stretch that may not enlarge keeps the box's proportions, and the
        /// spare pixel of a centred area is split as imgproxy splits it.
        case imgproxy
        /// libvips' and Pillow's, and the library's ``ImageProcessors/Resize``: scales are the
        /// box's side over the image's, each side of a stretch that may not enlarge stops at the
        /// image's own, and the spare pixel of a centred area goes after it.
        case direct
    }

    /// What the decoder may hand over when the layout only scales the whole image down.
    public enum DecoderShrink: String, Sendable, Hashable {
        /// Straight at the scaled size (libvips' thumbnail: shrink-on-load, then its own
        /// resize): the least work, as imgproxy and thumbor decode.
        case toSize
        /// Shrunk by a power of two (libjpeg's scaled IDCT, libwebp's scaled decode) only as far
        /// as leaves the layout's Lanczos resize twice its output on each side: within
        /// resampling noise of a whole decode (``DecodeTarget/reduced(toward:)``).
        case leavingTwice
    }

    /// Halves away from zero by default, as imgproxy rounds; thumbor rounds a proportional side's
    /// halves to even (Python's `round`) and truncates where its filters hand Pillow a fraction
    /// (`proportion` shrinking, `upscale` enlarging).
    public struct SideRounding: Sendable, Hashable {
        /// For a side made smaller.
        public var shrinking: FloatingPointRoundingRule
        /// For a side made larger.
        public var enlarging: FloatingPointRoundingRule

        /// Creates a rounding; both halves away from zero by default.
        public init(shrinking: FloatingPointRoundingRule = .toNearestOrAwayFromZero, enlarging: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
            self.shrinking = shrinking
            self.enlarging = enlarging
        }

        /// The rule for a side scaled by `factor`.
        func rule(for factor: Double) -> FloatingPointRoundingRule { factor > 1 ? enlarging : shrinking }
    }
    /// Which part a fill keeps.
    public var gravity = Placement.centre
    public var crop: Crop?
    /// When set, a result smaller than the box is placed on a canvas of the box's size there.
    public var extend: Placement?
    /// When set, a result of another aspect ratio than the box is placed on a canvas of the
    /// box's aspect ratio there.
    public var extendAspectRatio: Placement?
    public var padding = Insets()
    /// Clockwise, a multiple of 90, applied after the EXIF orientation; the box is in the turned
    /// image's terms.
    public var rotation = 0
    public var flipHorizontal = false
    public var flipVertical = false

    /// The image at its own size.
    public init() {}

    /// A stable description of everything here, for identifiers and cache keys.
    var name: String {
        var parts = ["\(widthFromImage ? "orig" : "\(width)")x\(heightFromImage ? "orig" : "\(height)")", resizing.rawValue]
        if adaptive { parts.append("adaptive") }
        if let aspectRatio { parts.append("aspect-ratio=\(aspectRatio)") }
        if let trim { parts.append("trim=\(trim.identifier)") }
        if minWidth > 0 || minHeight > 0 { parts.append("min=\(minWidth)x\(minHeight)") }
        if zoomX != 1 || zoomY != 1 { parts.append("zoom=\(zoomX)x\(zoomY)") }
        if dpr != 1 { parts.append("dpr=\(dpr)") }
        if enlarge { parts.append("enlarge") }
        if let maximumResultSide { parts.append("max-side=\(maximumResultSide)") }
        if let sourceLimit { parts.append("source-limit=\(sourceLimit.width)x\(sourceLimit.height)") }
        if sideRounding != SideRounding() { parts.append("round=\(sideRounding.shrinking),\(sideRounding.enlarging)") }
        if arithmetic != .imgproxy { parts.append("arithmetic=\(arithmetic.rawValue)") }
        if decoderShrink != .toSize { parts.append("decoder-shrink=\(decoderShrink.rawValue)") }
        parts.append("gravity=\(gravity.name)")
        if let crop { parts.append("crop=\(crop.width)x\(crop.height)@\(crop.placement?.name ?? "gravity")") }
        if let extend { parts.append("extend=\(extend.name)") }
        if let extendAspectRatio { parts.append("extend-ar=\(extendAspectRatio.name)") }
        if !padding.isEmpty { parts.append("padding=\(padding.top),\(padding.right),\(padding.bottom),\(padding.left)") }
        if rotation % 360 != 0 { parts.append("rotate=\(rotation)") }
        if flipHorizontal || flipVertical { parts.append("flip=\(flipHorizontal ? 1 : 0)\(flipVertical ? 1 : 0)") }
        return parts.joined(separator: ";")
    }
}
