import Foundation
import Magpie

/// A thumbor URL read into the shared vocabulary: its sizing as a ``Magpie/Layout`` (thumbor
/// crops to the box's aspect ratio around its alignment and enlarges; `fit-in` fits without
/// enlarging; `full-fit-in` covers), then its filters (``ThumborFilters``) as processors and
/// encoding settings. Filters thumbor would skip are skipped and named, never refused.
struct ThumborReading: Sendable {
    var options = ProxyOptions()
    /// The image to load: the URL's, or the one inside it (`extract_focal`).
    var source: URL
    /// Each filter skipped, with why.
    var skipped: [String] = []
    /// `autojpg()`'s say over ``ProxyConfiguration/thumborOpaquePNGAsJPEG``; `nil` leaves it.
    var opaquePNGAsJPEG: Bool?
    let path: ThumborPath
    let limits: ProcessingLimits

    /// `sideLimit` is thumbor's `MAX_WIDTH` and `MAX_HEIGHT` (0: none on that side): the asked
    /// sides are capped at them, each on its own, before any filter reads them, as thumbor's
    /// handler caps them.
    init(_ path: ThumborPath, limits: ProcessingLimits, optionalFilters: Set<String> = [], sideLimit: DecodedImage.Size? = nil) throws(ProxyURLError) {
        self.path = path
        self.limits = limits
        source = path.source
        options.layout = Self.layout(of: path)
        if let sideLimit {
            if sideLimit.width > 0 { options.layout.width = min(options.layout.width, sideLimit.width) }
            if sideLimit.height > 0 { options.layout.height = min(options.layout.height, sideLimit.height) }
        }
        // Those that change what is loaded or the size asked run first, as in thumbor's phases.
        let early: Set<String> = ["focal", "extract_focal", "stretch", "no_upscale"]
        for filter in path.filters.filter({ early.contains($0.name) }) + path.filters.filter({ !early.contains($0.name) }) {
            guard let apply = ThumborFilters.all[filter.name] ?? (optionalFilters.contains(filter.name) ? ThumborFilters.optional[filter.name] : nil) else {
                skipped.append("\(filter.name): \(ThumborFilters.unknownReason(filter.name))")
                continue
            }
            do throws(ThumborFilterFailure) {
                try apply(ThumborArguments(filter: filter), &self)
            } catch {
                switch error {
                case .skip(let reason): skipped.append(reason)
                case .refuse(let refusal): throw refusal
                }
            }
        }
        try options.checkSize(limits)
    }

    static func layout(of path: ThumborPath) -> Layout {
        var layout = Layout()
        (layout.width, layout.height) = (path.width, path.height)
        (layout.widthFromImage, layout.heightFromImage) = (path.originalWidth, path.originalHeight)
        let noUpscale = path.filters.contains { $0.name == "no_upscale" && $0.arguments.isEmpty }
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
        // A side thumbor computes from the other (`0x350`) is Python's round: halves to even. A
        // fit-in adds 1e-5 first, rounding halves up as the layout does.
        if path.fitting == nil, (path.width == 0) != (path.height == 0) { layout.sideRounding = .init(shrinking: .toNearestOrEven, enlarging: .toNearestOrEven) }
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
        return layout
    }


    /// A watermark's position along one axis: `N` pixels from the start, `-N` from the end,
    /// `Np` percent of the side, `center` or `repeat`.
    static func alignment(_ text: String) -> ImageProcessors.Watermark.Alignment? {
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

    static func placement(_ horizontal: String, _ vertical: String) -> Placement {
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
