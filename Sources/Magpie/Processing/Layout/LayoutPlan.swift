/// A ``Layout`` worked out for one image size: which area is cut, the size it is scaled to,
/// which part of that is kept, and the canvases around it. Sizes follow imgproxy's arithmetic
/// (its `calcScale` and `calcSizes`), so a URL gives the same dimensions here as there.
public struct LayoutPlan: Sendable, Hashable {
    /// An area kept by a crop.
    public enum Cut: Sendable, Hashable {
        case rectangle(x: Int, y: Int, width: Int, height: Int)
        /// The area of this size libvips' smart crop chooses.
        case smart(Gravity, width: Int, height: Int)
    }

    /// A canvas the image is placed on.
    public struct Canvas: Sendable, Hashable {
        public let width: Int
        public let height: Int
        public let x: Int
        public let y: Int
    }

    /// The size planned from: the image's, or smaller where ``Layout/sourceLimit`` says. The
    /// crop is in its pixels.
    public let source: DecodedImage.Size
    /// The crop before scaling, in the image's pixels.
    public let crop: Cut?
    /// What the (cropped) image is scaled to; `nil` when it keeps its size.
    public let scaled: DecodedImage.Size?
    /// The crop after scaling, to the box.
    public let resultCrop: Cut?
    /// Extending to the box, then to its aspect ratio, then the padding.
    public let canvases: [Canvas]
    /// The output's size.
    public let size: DecodedImage.Size
    /// The pixel ratio the result was made at (lower than asked when the image is too small
    /// to give it without enlarging).
    public let pixelRatio: Double

    /// Plans `layout` for an image of `source` pixels, turned as the layout turns it.
    public init(_ layout: Layout, source image: DecodedImage.Size) {
        var layout = layout
        let source = layout.sourceLimit.map { Self.normalized(image, within: $0) } ?? image
        if source != image, let crop = layout.crop { layout.crop = Self.translated(crop, from: image, to: source) }
        let cropSize = DecodedImage.Size(
            width: Self.cropSide(source.width, layout.crop?.width ?? 0),
            height: Self.cropSide(source.height, layout.crop?.height ?? 0))
        var size = source
        var crop: Cut?
        let focus = layout.gravity
        layout.gravity = focus.resolved(in: source)
        if cropSize.width > 0 || cropSize.height > 0 {
            crop = Self.cut(size, to: cropSize, at: layout.crop?.placement ?? layout.gravity, offsetScale: 1, arithmetic: layout.arithmetic)
            if let crop { size = crop.size }
        }
        if case .rectangle(let x, let y, _, _) = crop {
            // A focus pixel is the source's: where it falls in what the crop kept.
            layout.gravity = focus.resolved(in: size, from: (x, y))
        }
        // The box's `orig` sides and its turn to the image's orientation are the cropped image's.
        if layout.widthFromImage { layout.width = size.width }
        if layout.heightFromImage { layout.height = size.height }
        if let ratio = layout.aspectRatio { (layout.width, layout.height) = Self.box(layout.width, layout.height, shaped: ratio, within: size) }
        if layout.adaptive, (size.width < size.height && layout.width > layout.height) || (size.width > size.height && layout.width < layout.height) {
            (layout.width, layout.height) = (layout.height, layout.width)
        }
        let scale = Scale(layout, toScale: size)
        self.init(resolved: layout, source: source, crop: crop, cropped: size, scale: scale)
        // A result over the longest side asked is made smaller as a whole, each of its parts
        // (the image, the box, the padding) rounded on its own, as imgproxy limits it.
        if let limit = layout.maximumResultSide, limit > 0, max(self.size.width, self.size.height) > limit {
            let shrink = Double(limit) / Double(max(self.size.width, self.size.height))
            self = LayoutPlan(resolved: layout, source: source, crop: crop, cropped: size, scale: scale.shrunk(by: shrink, holding: size))
        }
    }

    /// Plans the rest once the crop and the scale are known.
    private init(resolved layout: Layout, source: DecodedImage.Size, crop: Cut?, cropped: DecodedImage.Size, scale: Scale) {
        self.source = source
        var size = cropped
        let scaled = DecodedImage.Size(
            width: max(1, Rounding.scale(size.width, scale.horizontal, layout.sideRounding.rule(for: scale.horizontal))),
            height: max(1, Rounding.scale(size.height, scale.vertical, layout.sideRounding.rule(for: scale.vertical))))
        let target = DecodedImage.Size(
            width: Rounding.scale(layout.width, scale.pixelRatio * layout.zoomX),
            height: Rounding.scale(layout.height, scale.pixelRatio * layout.zoomY))
        var resultCropSize = layout.resizing == .cover ? DecodedImage.Size(width: 0, height: 0) : target
        if layout.resizing == .fillDown, !layout.enlarge {
            let across = Double(target.width) / Double(scaled.width), down = Double(target.height) / Double(scaled.height)
            if across > down, across > 1 {
                resultCropSize = DecodedImage.Size(width: scaled.width, height: Rounding.scale(scaled.width, Double(target.height) / Double(target.width)))
            } else if down > across, down > 1 {
                resultCropSize = DecodedImage.Size(width: Rounding.scale(scaled.height, Double(target.width) / Double(target.height)), height: scaled.height)
            }
        }
        self.crop = crop
        self.scaled = scale.horizontal != 1 || scale.vertical != 1 ? scaled : nil
        size = scaled
        resultCrop = Self.cut(size, to: resultCropSize, at: layout.gravity, offsetScale: scale.pixelRatio, arithmetic: layout.arithmetic)
        if let resultCrop { size = resultCrop.size }

        var canvases: [Canvas] = []
        func place(_ box: DecodedImage.Size, _ placement: Placement) {
            guard box.width > size.width || box.height > size.height else { return }
            let outer = DecodedImage.Size(width: max(box.width, size.width), height: max(box.height, size.height))
            let origin = placement.origin(outer: outer, inner: size, scale: scale.pixelRatio, arithmetic: layout.arithmetic)
            canvases.append(Canvas(width: outer.width, height: outer.height, x: origin.x, y: origin.y))
            size = outer
        }
        if let extend = layout.extend {
            place(target, extend)
        }
        if let extendAspectRatio = layout.extendAspectRatio, target.width > 0, target.height > 0 {
            let across = Double(target.width) / Double(size.width), down = Double(target.height) / Double(size.height)
            if down > across {
                place(DecodedImage.Size(width: size.width, height: Rounding.scale(size.width, Double(target.height) / Double(target.width))), extendAspectRatio)
            } else if across > down {
                place(DecodedImage.Size(width: Rounding.scale(size.height, Double(target.width) / Double(target.height)), height: size.height), extendAspectRatio)
            }
        }
        let padding = layout.padding
        if !padding.isEmpty {
            let (top, right) = (Rounding.scaleToEven(padding.top, scale.pixelRatio), Rounding.scaleToEven(padding.right, scale.pixelRatio))
            let (bottom, left) = (Rounding.scaleToEven(padding.bottom, scale.pixelRatio), Rounding.scaleToEven(padding.left, scale.pixelRatio))
            canvases.append(Canvas(width: size.width + left + right, height: size.height + top + bottom, x: left, y: top))
            size = DecodedImage.Size(width: size.width + left + right, height: size.height + top + bottom)
        }
        self.canvases = canvases
        self.size = size
        pixelRatio = scale.pixelRatio
    }

    /// `image` within `limit` as thumbor normalises a source: shrunk to the limit on the side
    /// that exceeds it more (the other in proportion, halves to even), unchanged when neither
    /// does or they exceed it equally.
    static func normalized(_ image: DecodedImage.Size, within limit: DecodedImage.Size) -> DecodedImage.Size {
        guard image.width > limit.width || image.height > limit.height else { return image }
        let (acrossOver, downOver) = (image.width - limit.width, image.height - limit.height)
        if limit.width > 0, acrossOver > downOver {
            return DecodedImage.Size(width: limit.width, height: max(1, Rounding.scaleToEven(image.height, Double(limit.width) / Double(image.width))))
        }
        if limit.height > 0, downOver > acrossOver {
            return DecodedImage.Size(width: max(1, Rounding.scaleToEven(image.width, Double(limit.height) / Double(image.height))), height: limit.height)
        }
        return image
    }

    /// A crop in an image's pixels, in those of the image at `normalized` size: each edge scaled
    /// and floored, as thumbor translates a crop.
    static func translated(_ crop: Layout.Crop, from image: DecodedImage.Size, to normalized: DecodedImage.Size) -> Layout.Crop {
        guard case .anchored(.northWest, let x, let y) = crop.placement, crop.width >= 1, crop.height >= 1 else { return crop }
        func edge(_ value: Double, _ from: Int, _ to: Int) -> Double { (value * Double(to) / Double(from)).rounded(.down) }
        let (left, top) = (edge(x, image.width, normalized.width), edge(y, image.height, normalized.height))
        let (right, bottom) = (edge(x + crop.width, image.width, normalized.width), edge(y + crop.height, image.height, normalized.height))
        return Layout.Crop(width: max(1, right - left), height: max(1, bottom - top), placement: .anchored(.northWest, x: left, y: top))
    }

    /// A box of `width` by `height` (0: not given) with the other side made so it is `ratio`
    /// times as wide as high; with neither given, the largest such box inside `size`. A box
    /// given whole keeps its own shape.
    static func box(_ width: Int, _ height: Int, shaped ratio: Double, within size: DecodedImage.Size) -> (width: Int, height: Int) {
        // The option holds the shape to 1:100–100:1; a layout built in code is held there too.
        guard ratio.isFinite, ratio > 0 else { return (width, height) }
        let ratio = min(max(ratio, 0.01), 100)
        func side(_ value: Double) -> Int { max(1, Int(min(value, Double(Int32.max)).rounded())) }
        switch (width, height) {
        case (0, 0):
            let widest = Double(size.width) / ratio <= Double(size.height)
            return widest ? (size.width, side(Double(size.width) / ratio)) : (side(Double(size.height) * ratio), size.height)
        case (0, _): return (side(Double(height) * ratio), height)
        case (_, 0): return (width, side(Double(width) / ratio))
        default: return (width, height)
        }
    }

    /// A crop side: pixels at 1 and above, a fraction of `side` below (at least one pixel),
    /// 0 for none.
    static func cropSide(_ side: Int, _ crop: Double) -> Int {
        if crop == 0 { return 0 }
        if crop >= 1 { return Int(crop) }
        return max(1, Rounding.scale(side, crop))
    }

    /// The area of `area` (0: the whole side) cut from an image of `size`; `nil` when it keeps
    /// all of it.
    static func cut(
        _ size: DecodedImage.Size, to area: DecodedImage.Size, at placement: Placement, offsetScale: Double, arithmetic: Layout.Arithmetic
    ) -> Cut? {
        guard area.width > 0 || area.height > 0 else { return nil }
        let (width, height) = (Rounding.minNonZero(area.width, size.width), Rounding.minNonZero(area.height, size.height))
        guard width < size.width || height < size.height else { return nil }
        if case .smart(let gravity) = placement { return .smart(gravity, width: width, height: height) }
        let origin = placement.origin(outer: size, inner: DecodedImage.Size(width: width, height: height), scale: offsetScale, arithmetic: arithmetic)
        return .rectangle(x: origin.x, y: origin.y, width: width, height: height)
    }
}

extension LayoutPlan.Cut {
    var size: DecodedImage.Size {
        switch self {
        case .rectangle(_, _, let width, let height), .smart(_, let width, let height): DecodedImage.Size(width: width, height: height)
        }
    }
}

/// The scale factors and pixel ratio a layout gives an image of a size (imgproxy's
/// `calcScale`): the box's shrink per axis by the resizing mode, then zoom, enlargement, the
/// minimum sizes and the pixel ratio.
private struct Scale {
    var horizontal: Double
    var vertical: Double
    var pixelRatio: Double

    /// Smaller by `factor`, never below one pixel of `size`.
    func shrunk(by factor: Double, holding size: DecodedImage.Size) -> Scale {
        var copy = self
        copy.horizontal = max(horizontal * factor, 1 / Double(size.width))
        copy.vertical = max(vertical * factor, 1 / Double(size.height))
        copy.pixelRatio *= factor
        return copy
    }

    init(_ layout: Layout, toScale size: DecodedImage.Size) {
        switch layout.arithmetic {
        case .imgproxy: self.init(imgproxy: layout, toScale: size)
        case .direct: self.init(direct: layout, toScale: size)
        }
    }

    /// libvips' and Pillow's: the box's side over the image's, by the resizing mode, times the
    /// zoom and the pixel ratio; without enlarging, each side stops at the image's own; the
    /// minimum sizes then raise both in proportion.
    private init(direct layout: Layout, toScale size: DecodedImage.Size) {
        let (width, height) = (Double(size.width), Double(size.height))
        let (across, down) = (Double(layout.width) / width, Double(layout.height) / height)
        var (horizontal, vertical) = (across, down)
        if layout.width == 0 || layout.height == 0 {
            let only = layout.width > 0 ? across : layout.height > 0 ? down : 1
            (horizontal, vertical) = (only, only)
        } else {
            switch layout.resizing {
            case .fit: (horizontal, vertical) = (min(across, down), min(across, down))
            case .fill, .fillDown, .cover: (horizontal, vertical) = (max(across, down), max(across, down))
            case .force: break
            case .auto:
                let both = (width >= height) == (layout.width >= layout.height) ? max(across, down) : min(across, down)
                (horizontal, vertical) = (both, both)
            }
        }
        horizontal *= layout.zoomX * layout.dpr
        vertical *= layout.zoomY * layout.dpr
        if !layout.enlarge {
            (horizontal, vertical) = (min(horizontal, 1), min(vertical, 1))
        }
        if layout.minWidth > 0, width * horizontal > 0, width * horizontal < Double(layout.minWidth) {
            let raise = Double(layout.minWidth) / (width * horizontal)
            (horizontal, vertical) = (horizontal * raise, vertical * raise)
        }
        if layout.minHeight > 0, height * vertical > 0, height * vertical < Double(layout.minHeight) {
            let raise = Double(layout.minHeight) / (height * vertical)
            (horizontal, vertical) = (horizontal * raise, vertical * raise)
        }
        (self.horizontal, self.vertical, pixelRatio) = (horizontal, vertical, layout.dpr)
    }

    /// imgproxy's `calcScale`.
    private init(imgproxy layout: Layout, toScale size: DecodedImage.Size) {
        let (sourceWidth, sourceHeight) = (Double(size.width), Double(size.height))
        let boxWidth = layout.width == 0 ? sourceWidth : Double(layout.width)
        let boxHeight = layout.height == 0 ? sourceHeight : Double(layout.height)
        var across = boxWidth == sourceWidth ? 1 : sourceWidth / boxWidth
        var down = boxHeight == sourceHeight ? 1 : sourceHeight / boxHeight
        if across != 1 || down != 1 {
            var resizing = layout.resizing
            if resizing == .auto {
                let sameOrientation = (sourceWidth >= sourceHeight) == (boxWidth >= boxHeight)
                resizing = sameOrientation ? .fill : .fit
            }
            if layout.width == 0, resizing != .force {
                across = down
            } else if layout.height == 0, resizing != .force {
                down = across
            } else if resizing == .fit {
                across = max(across, down)
                down = across
            } else if resizing == .fill || resizing == .fillDown || resizing == .cover {
                across = min(across, down)
                down = across
            }
        }
        across /= layout.zoomX
        down /= layout.zoomY
        var pixelRatio = layout.dpr
        if !layout.enlarge {
            let least = min(across, down)
            if least < 1 {
                across /= least
                down /= least
                // Too small for the box: a higher ratio keeps the result the box's shape where
                // it can, unless an extend is to show the box as asked.
                if layout.extend == nil { pixelRatio /= least }
            }
            pixelRatio = min(pixelRatio, min(across, down))
        }
        if layout.minWidth > 0 {
            let least = sourceWidth / Double(layout.minWidth)
            if least < across {
                down /= across / least
                across = least
            }
        }
        if layout.minHeight > 0 {
            let least = sourceHeight / Double(layout.minHeight)
            if least < down {
                across /= down / least
                down = least
            }
        }
        across /= pixelRatio
        down /= pixelRatio
        horizontal = 1 / min(across, sourceWidth)
        vertical = 1 / min(down, sourceHeight)
        self.pixelRatio = pixelRatio
    }
}

/// The roundings layouts are computed with, so sizes come out as imgproxy's do.
enum Rounding {
    /// `value` times `factor`, halves away from zero unless `rule` says otherwise; 0 stays 0.
    /// Truncating, a product a float's error put just below a whole number (800 × 0.9 as
    /// 719.9999…) is taken as that number.
    static func scale(_ value: Int, _ factor: Double, _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int {
        guard value != 0 else { return 0 }
        let product = Double(value) * factor
        return Int((rule == .towardZero || rule == .down ? product + 1e-6 : product).rounded(rule))
    }

    /// `value` times `factor`, halves to even; 0 stays 0.
    static func scaleToEven(_ value: Int, _ factor: Double) -> Int {
        value == 0 ? 0 : Int((Double(value) * factor).rounded(.toNearestOrEven))
    }

    /// Half of `value`, halves to even.
    static func halfToEven(_ value: Int) -> Int {
        scaleToEven(value, 0.5)
    }

    /// The smaller of two sizes, where 0 means "not given".
    static func minNonZero(_ a: Int, _ b: Int) -> Int {
        a == 0 ? b : b == 0 ? a : min(a, b)
    }
}
