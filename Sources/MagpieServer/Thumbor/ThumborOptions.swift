import Foundation
import Magpie

extension ProxyOptions {
    /// What a thumbor URL asks for, in the shared vocabulary: its sizing as a ``Magpie/Layout``
    /// (thumbor crops to the box's aspect ratio around its alignment and enlarges; `fit-in`
    /// fits without enlarging; `full-fit-in` covers), its filters as processors and encoding
    /// settings. A filter Magpie does not carry out is refused by name.
    init(thumbor path: ThumborPath, limits: ProcessingLimits) throws(ProxyURLError) {
        self.init()
        var layout = Layout()
        (layout.width, layout.height) = (path.width, path.height)
        (layout.widthFromImage, layout.heightFromImage) = (path.originalWidth, path.originalHeight)
        let noUpscale = path.filters.contains { $0.name == "no_upscale" }
        switch path.fitting {
        case nil:
            layout.resizing = noUpscale ? .fillDown : .fill
            layout.enlarge = !noUpscale
        case .fitIn, .adaptiveFitIn:
            layout.resizing = .fit
        case .fullFitIn, .adaptiveFullFitIn:
            layout.resizing = .cover
            layout.enlarge = !noUpscale
        }
        layout.adaptive = path.fitting == .adaptiveFitIn || path.fitting == .adaptiveFullFitIn
        if let crop = path.crop, crop.right > crop.left, crop.bottom > crop.top {
            layout.crop = Layout.Crop(
                width: Double(crop.right - crop.left), height: Double(crop.bottom - crop.top),
                placement: .anchored(.northWest, x: Double(crop.left), y: Double(crop.top)))
        }
        layout.gravity = path.smart ? .smart(.attention) : Self.placement(path.horizontalAlignment, path.verticalAlignment)
        (layout.flipHorizontal, layout.flipVertical) = (path.flipHorizontal, path.flipVertical)
        if let trim = path.trim {
            layout.trim = ImageProcessors.Trim(threshold: Double(min(255, trim.tolerance)), corner: trim.corner == "bottom-right" ? .bottomRight : .topLeft)
        }
        self.layout = layout
        for filter in path.filters { try apply(filter, limits: limits) }
        try checkSize(limits)
    }

    private mutating func apply(_ filter: ThumborPath.Filter, limits: ProcessingLimits) throws(ProxyURLError) {
        let arguments = filter.arguments
        func failure(_ usage: String) -> ProxyURLError { .malformed("filter '\(filter.name)(\(arguments.joined(separator: ",")))': \(usage)") }
        func number(_ index: Int, _ range: ClosedRange<Double>, _ usage: String) throws(ProxyURLError) -> Double {
            guard index < arguments.count, let value = Double(arguments[index]), range.contains(value) else { throw failure(usage) }
            return value
        }
        switch filter.name {
        case "quality":
            quality = Int(try number(0, 0...100, "quality(0 to 100)"))
            if quality == 0 { quality = nil }
        case "format":
            guard arguments.count == 1, let format = ImageFormat(name: arguments[0].lowercased()), format.isEncodable else {
                throw failure("format(webp|jpeg|png|gif|avif)")
            }
            self.format = .fixed(format)
        case "blur":
            let radius = try number(0, 0...150, "blur(RADIUS[,SIGMA]), a radius up to 150")
            let sigma = arguments.count > 1 ? try number(1, 0...limits.maximumBlurSigma, "blur(RADIUS,SIGMA)") : min(radius, limits.maximumBlurSigma)
            if sigma > 0 { filters.append(ImageProcessors.GaussianBlur(sigma: sigma)) }
        case "sharpen":
            // Thumbor's unsharp mask: its amount and radius; luminance_only is not told apart.
            let amount = try number(0, 0...10, "sharpen(AMOUNT,RADIUS,LUMINANCE_ONLY), an amount from 0 to 10")
            let radius = try number(1, 0...ImageProcessors.Sharpen.sigmaLimit, "sharpen(AMOUNT,RADIUS,LUMINANCE_ONLY), a radius up to 10")
            if amount > 0, radius > 0 { filters.append(ImageProcessors.UnsharpMask(sigma: radius, amount: amount)) }
        case "round_corner":
            guard arguments.count >= 4, let colour = Self.colour(arguments[1...3].joined(separator: ",")) else {
                throw failure("round_corner(A|B,R,G,B[,TRANSPARENT])")
            }
            let radii = arguments[0].split(separator: "|").map { Double($0) }
            guard let radius = radii.first ?? nil, radius >= 0, radius <= Double(limits.maximumDimension), radii.allSatisfy({ $0 == radius }) else {
                throw failure("round_corner takes one radius (elliptical corners are not supported)")
            }
            if radius > 0 { filters.append(ImageProcessors.RoundedCorners(radius: radius)) }
            if arguments.count < 5 || arguments[4] != "1" { background = colour }
        case "fill":
            guard let first = arguments.first else { throw failure("fill(COLOUR)") }
            layout.extend = .centre
            if first != "transparent" {
                guard let colour = Self.colour(first) else { throw failure("fill takes a colour: hex, a name or transparent (auto and blur are not supported)") }
                background = colour
            }
        case "background_color":
            guard arguments.count == 1, let colour = Self.colour(arguments[0]) else { throw failure("background_color(COLOUR)") }
            background = colour
        case "grayscale":
            filters.append(ImageProcessors.Grayscale())
        case "rotate":
            guard arguments.count == 1, let degrees = Int(arguments[0]), degrees % 90 == 0 else { throw failure("rotate(ANGLE), a multiple of 90") }
            // Thumbor turns counter-clockwise, after the resize.
            turn = ((360 - degrees % 360) % 360)
        case "strip_exif", "strip_icc", "no_upscale":
            // Magpie writes no metadata and converts to sRGB without a profile; no_upscale was read with the size.
            break
        case "proportion":
            let proportion = try number(0, 0.01...1, "proportion(0.01 to 1)")
            (layout.zoomX, layout.zoomY) = (proportion, proportion)
        case "max_bytes":
            let bytes = Int(try number(0, 1...Double(Int32.max), "max_bytes(BYTES)"))
            maximumBytes = bytes
        case "brightness", "contrast":
            // Thumbor adds 255·n/100 levels, and scales contrast by ((n+100)²/100)/100, in whole numbers.
            let amount = Int(try number(0, -100...100, "\(filter.name)(-100 to 100)"))
            let adjust =
                filter.name == "brightness"
                ? ImageProcessors.Adjust(brightness: Double(255 * amount / 100))
                : ImageProcessors.Adjust(contrast: Double((amount + 100) * (amount + 100) / 100) / 100)
            if adjust != ImageProcessors.Adjust() { filters.append(adjust) }
        case "watermark":
            guard (4...6).contains(arguments.count), let x = Self.alignment(arguments[1]), let y = Self.alignment(arguments[2]) else {
                throw failure("watermark(URL,X,Y,ALPHA[,W_RATIO,H_RATIO]); X and Y are pixels (negative from the far edge), Np, center or repeat")
            }
            var mark = WatermarkOptions()
            mark.mark = .url(try ThumborPath.source(arguments[0]))
            mark.position = .aligned(x: x, y: y)
            // Thumbor's alpha is how transparent the mark is, in percent.
            mark.opacity = 1 - (try number(3, 0...100, "watermark's alpha is 0 (opaque) to 100 (invisible)")) / 100
            for index in 4..<arguments.count where arguments[index] != "none" {
                let ratio = try number(index, 0...100, "watermark's W_RATIO and H_RATIO are 0 to 100 percent, or none") / 100
                if index == 4 { mark.scaleWidth = ratio } else { mark.scaleHeight = ratio }
            }
            watermark = mark.opacity > 0 ? mark : nil
        case "focal":
            // focal(LEFTxTOP:RIGHTxBOTTOM): the crop centres on the rectangle's centre.
            let corners = arguments.count == 1 ? arguments[0].split(separator: ":").map { $0.split(separator: "x").compactMap { Int($0) } } : []
            guard corners.count == 2, corners.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0 >= 0 && $0 <= 1_000_000 } }),
                corners[1][0] >= corners[0][0], corners[1][1] >= corners[0][1]
            else {
                throw failure("focal(LEFTxTOP:RIGHTxBOTTOM), a rectangle in the source's pixels")
            }
            layout.gravity = .focusPixel(x: Double(corners[0][0] + corners[1][0]) / 2, y: Double(corners[0][1] + corners[1][1]) / 2)
        case "equalize", "noise", "saturation", "rgb", "convolution",
            "extract_focal", "cover", "curve", "upscale", "max_age", "stretch", "autojpg", "blur_faces", "red_eye":
            throw .malformed("thumbor's filter '\(filter.name)' is not supported by Magpie yet")
        default:
            throw .malformed("unknown thumbor filter '\(filter.name)'")
        }
    }

    /// A watermark's position along one axis: `N` pixels from the start, `-N` from the end,
    /// `Np` percent of the side, `center` or `repeat`.
    private static func alignment(_ text: String) -> ImageProcessors.Watermark.Alignment? {
        switch text {
        case "center": return .centre
        case "repeat": return .repeated
        default:
            let fromEnd = text.hasPrefix("-")
            var digits = fromEnd ? text.dropFirst() : Substring(text)
            let percent = digits.hasSuffix("p")
            if percent { digits = digits.dropLast() }
            guard !digits.isEmpty, digits.count <= 6, digits.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int(digits) else { return nil }
            let offset: ImageProcessors.Watermark.Offset = percent ? .percent(Double(value)) : .pixels(value)
            return fromEnd ? .end(offset) : .start(offset)
        }
    }

    private static func placement(_ horizontal: String, _ vertical: String) -> Placement {
        switch (horizontal, vertical) {
        case ("left", "top"): .anchored(.northWest)
        case ("center", "top"): .anchored(.north)
        case ("right", "top"): .anchored(.northEast)
        case ("left", "bottom"): .anchored(.southWest)
        case ("center", "bottom"): .anchored(.south)
        case ("right", "bottom"): .anchored(.southEast)
        case ("left", _): .anchored(.west)
        case ("right", _): .anchored(.east)
        default: .centre
        }
    }

    /// Hex (`ff0000`, `f00`, with or without `#`) or one of a few CSS names.
    static func colour(_ text: String) -> Colour? {
        let names: [String: Colour] = [
            "white": .white, "black": .black, "red": Colour(red: 255, green: 0, blue: 0), "green": Colour(red: 0, green: 128, blue: 0),
            "blue": Colour(red: 0, green: 0, blue: 255), "gray": Colour(red: 128, green: 128, blue: 128), "grey": Colour(red: 128, green: 128, blue: 128),
            "yellow": Colour(red: 255, green: 255, blue: 0),
        ]
        let lowered = text.lowercased()
        if let named = names[lowered] { return named }
        if text.split(separator: ",").count == 3 {
            let channels = text.split(separator: ",").compactMap { UInt8($0.trimmingCharacters(in: .whitespaces)) }
            return channels.count == 3 ? Colour(red: channels[0], green: channels[1], blue: channels[2]) : nil
        }
        return Colour(opaqueHex: lowered.hasPrefix("#") ? lowered.dropFirst() : Substring(lowered))
    }
}
