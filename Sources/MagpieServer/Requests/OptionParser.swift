import Foundation
import Magpie

/// Reads option segments (`name:value:value`) into ``ProxyOptions`` with imgproxy's names and
/// meanings, expanding presets (the `default` preset first, when there is one). Processors
/// shared with the command line come from ``Magpie/ProcessingOption``. An option Magpie does not
/// carry out is refused with a 400 that names it, never ignored.
struct OptionParser: Sendable {
    /// Preset name → its option segments.
    let presets: [String: [String]]
    let limits: ProcessingLimits
    /// For `expires`.
    var now: @Sendable () -> Date = { Date() }

    func parse(_ segments: [String]) throws(ProxyURLError) -> ProxyOptions {
        var reading = Reading()
        if let preset = presets["default"] {
            try apply(preset, to: &reading, presetsInUse: ["default"])
        }
        try apply(segments, to: &reading, presetsInUse: [])
        return try reading.finished(limits: limits)
    }

    private func apply(_ segments: [String], to reading: inout Reading, presetsInUse: Set<String>) throws(ProxyURLError) {
        for segment in segments {
            let option = OptionValues(segment)
            if ["pr", "preset"].contains(option.name) {
                guard !option.values.isEmpty, !option.values.contains("") else { throw option.failure("preset takes names, pr:NAME[:NAME...]") }
                for name in option.values where !presetsInUse.contains(name) {
                    // A preset naming itself, directly or not, is skipped there, as imgproxy does.
                    guard let preset = presets[name] else { throw option.failure("no preset named '\(name)'") }
                    try apply(preset, to: &reading, presetsInUse: presetsInUse.union([name]))
                }
            } else {
                try read(option, into: &reading)
            }
        }
    }

    private func read(_ option: OptionValues, into reading: inout Reading) throws(ProxyURLError) {
        guard !option.values.isEmpty || ProcessingOption.named(option.name) != nil else {
            throw option.failure("\(option.name) takes a value after a colon")
        }
        let maximum = limits.maximumDimension
        switch option.name {
        case "resize", "rs":
            try option.count(1...8, usage: "resize is rs:TYPE:WIDTH:HEIGHT:ENLARGE:EXTEND")
            if option.has(0) { reading.options.layout.resizing = try Self.resizing(option, 0) }
            try readSize(option, from: 1, into: &reading)
        case "size", "s":
            try option.count(1...7, usage: "size is s:WIDTH:HEIGHT:ENLARGE:EXTEND")
            try readSize(option, from: 0, into: &reading)
        case "resizing_type", "rt":
            try option.count(1...1, usage: "resizing_type is one of \(Self.resizingNames)")
            reading.options.layout.resizing = try Self.resizing(option, 0)
        case "width", "w": reading.options.layout.width = try option.count(limit: maximum)
        case "height", "h": reading.options.layout.height = try option.count(limit: maximum)
        case "min-width", "mw": reading.options.layout.minWidth = try option.count(limit: maximum)
        case "min-height", "mh": reading.options.layout.minHeight = try option.count(limit: maximum)
        case "zoom", "z":
            try option.count(1...2, usage: "zoom is z:FACTOR or z:X:Y")
            reading.options.layout.zoomX = try option.positive(0, limit: 100, what: "zoom")
            reading.options.layout.zoomY = option.values.count == 2 ? try option.positive(1, limit: 100, what: "zoom") : reading.options.layout.zoomX
        case "dpr":
            try option.count(1...1, usage: "dpr takes one number")
            reading.options.layout.dpr = try option.positive(limit: 100, what: "dpr")
        case "enlarge", "el": reading.options.layout.enlarge = try option.bool()
        case "extend", "ex": reading.options.layout.extend = try Self.extend(option, from: 0)
        case "extend_aspect_ratio", "extend_ar", "exar": reading.options.layout.extendAspectRatio = try Self.extend(option, from: 0)
        case "gravity", "g": reading.options.layout.gravity = try option.placement(from: 0)
        case "crop", "c":
            let width = try option.number(0, in: 0...Double(maximum), what: "a crop's width")
            let height = option.has(1) ? try option.number(1, in: 0...Double(maximum), what: "a crop's height") : 0
            reading.options.layout.crop = Layout.Crop(width: width, height: height, placement: option.values.count > 2 ? try option.placement(from: 2) : nil)
        case "padding", "pd":
            try option.count(1...4, usage: "padding is pd:TOP:RIGHT:BOTTOM:LEFT")
            var padding = reading.options.layout.padding
            if option.has(0) { padding.top = try option.count(0, limit: maximum) }
            padding.right = option.has(1) ? try option.count(1, limit: maximum) : padding.top
            padding.bottom = option.has(2) ? try option.count(2, limit: maximum) : padding.top
            padding.left = option.has(3) ? try option.count(3, limit: maximum) : padding.right
            reading.options.layout.padding = padding
        case "auto_rotate", "ar":
            guard try option.bool() else { throw option.failure("Magpie always applies the EXIF orientation; auto_rotate:0 is not supported") }
        case "rotate", "rot":
            guard option.values.count == 1, let degrees = Int(option.values[0]), degrees % 90 == 0 else {
                throw option.failure("rotate takes a multiple of 90 degrees")
            }
            reading.options.layout.rotation = (degrees % 360 + 360) % 360
        case "flip", "fl":
            try option.count(1...2, usage: "flip is fl:HORIZONTAL:VERTICAL")
            if option.has(0) { reading.options.layout.flipHorizontal = try option.bool(0) }
            if option.has(1) { reading.options.layout.flipVertical = try option.bool(1) }
        case "background", "bg": reading.options.background = try Self.colour(option)
        case "strip_metadata", "sm":
            guard try option.bool() else { throw option.failure("Magpie writes no metadata; strip_metadata:0 is not supported") }
        case "strip_color_profile", "scp":
            guard try option.bool() else {
                throw option.failure("Magpie converts every image to sRGB and writes no profile; strip_color_profile:0 is not supported")
            }
        case "keep_copyright", "kcr": reading.options.keepsCopyright = try option.bool()
        case "quality", "q":
            try option.count(1...1, usage: "quality takes one whole number")
            let quality = try option.count(limit: 100)
            reading.options.quality = quality == 0 ? nil : quality
        case "format_quality", "fq":
            guard option.values.count % 2 == 0 else { throw option.failure("format_quality is fq:FORMAT:QUALITY[:FORMAT:QUALITY...]") }
            for index in stride(from: 0, to: option.values.count, by: 2) {
                let format = try Self.format(option, index)
                let quality = try option.count(index + 1, limit: 100)
                reading.options.formatQuality[format] = quality == 0 ? nil : quality
            }
        case "format", "f", "ext":
            try option.count(1...1, usage: "format takes one name")
            reading.options.format = option.values[0].lowercased() == "auto" ? .auto : .fixed(try Self.format(option, 0))
        case "skip_processing", "skp":
            for index in option.values.indices { reading.options.skipProcessing.insert(try Self.anyFormat(option, index)) }
        case "raw": reading.options.raw = try option.bool()
        case "cachebuster", "cb":
            try option.count(1...1, usage: "cachebuster takes one value")
            reading.options.cacheBuster = option.values[0].isEmpty ? nil : option.values[0]
        case "expires", "exp":
            guard option.values.count == 1, let seconds = Int(option.values[0]) else { throw option.failure("expires takes a Unix time in seconds") }
            if seconds > 0, Double(seconds) < now().timeIntervalSince1970 {
                throw ProxyURLError(status: 410, message: "the URL expired at \(Date(timeIntervalSince1970: Double(seconds)))")
            }
            reading.options.expires = seconds > 0 ? seconds : nil
        case "filename", "fn":
            try option.count(1...2, usage: "filename is fn:NAME or fn:BASE64NAME:1")
            reading.options.filename = try Self.filename(option)
        case "return_attachment", "att": reading.options.returnAttachment = try option.bool()
        case "fit":
            // Magpie's own spelling, from before imgproxy's names were read.
            switch option.values[0].lowercased() {
            case "fit": reading.options.layout.resizing = .fit
            case "fill": reading.options.layout.resizing = .fill
            case "crop": reading.cropsToBox = true
            default: throw option.failure("fit is one of fit, fill, crop")
            }
        case "ff", "first-frame": reading.options.firstFrame = try option.bool()
        case "page", "pg":
            try option.count(1...1, usage: "page takes a frame number from 0")
            reading.options.page = try option.count(limit: 100_000)
        case "background_alpha", "bga":
            try option.count(1...1, usage: "background_alpha takes an opacity from 0 to 1")
            reading.options.backgroundAlpha = try option.number(0, in: 0...1, what: "background_alpha")
        case "brightness", "br", "contrast", "co", "saturation", "sa":
            // imgproxy's parts of adjust, each into its place.
            try option.count(1...1, usage: "\(option.name) takes one number")
            var parts = reading.options.processing["adjust"] ?? ["", "", ""]
            parts += Array(repeating: "", count: max(0, 3 - parts.count))
            parts[["brightness", "br"].contains(option.name) ? 0 : ["contrast", "co"].contains(option.name) ? 1 : 2] = option.values[0]
            try readShared(ProcessingOption.named("adjust")!, values: parts, segment: option, into: &reading)
        case "trim", "t":
            try option.count(1...4, usage: "trim is t:THRESHOLD:COLOUR:EQUAL_HORIZONTAL:EQUAL_VERTICAL")
            guard option.has(0) else {
                // No threshold turns trimming off, as in imgproxy.
                reading.options.layout.trim = nil
                return
            }
            let threshold = try option.number(0, in: 0...255, what: "a trim's threshold")
            var colour: Colour?
            if option.has(1) {
                guard option.values[1].count == 6, let hex = Colour(hex: option.values[1]) else { throw option.failure("a trim's colour is RRGGBB in hex") }
                colour = hex
            }
            reading.options.layout.trim = ImageProcessors.Trim(
                threshold: threshold, colour: colour, equalHorizontal: option.has(2) ? try option.bool(2) : false,
                equalVertical: option.has(3) ? try option.bool(3) : false)
        case "max_bytes", "mb":
            try option.count(1...1, usage: "max_bytes takes a number of bytes")
            let bytes = try option.count(limit: Int(Int32.max))
            reading.options.maximumBytes = bytes == 0 ? nil : bytes
        case "watermark", "wm":
            try option.count(1...5, usage: "watermark is wm:OPACITY:POSITION:X_OFFSET:Y_OFFSET:SCALE")
            var watermark = WatermarkOptions()
            watermark.opacity = try option.number(0, in: 0...1, what: "a watermark's opacity")
            let offsets = try (1...2).map { index throws(ProxyURLError) in
                option.has(index + 1) ? try option.number(index + 1, in: -100_000...100_000, what: "a watermark's offset") : 0
            }
            if option.has(1), option.values[1].lowercased() == "re" {
                watermark.position = .tiled(spacingX: max(offsets[0], 0), spacingY: max(offsets[1], 0))
            } else if option.has(1) {
                guard let anchor = OptionValues.anchors[option.values[1].lowercased()] else {
                    throw option.failure("a watermark's position is one of ce, no, so, ea, we, noea, nowe, soea, sowe, re")
                }
                watermark.position = .placed(.anchored(anchor, x: offsets[0], y: offsets[1]))
            } else {
                watermark.position = .placed(.anchored(.centre, x: offsets[0], y: offsets[1]))
            }
            if option.has(4) {
                let scale = try option.number(4, in: 0...1, what: "a watermark's scale")
                (watermark.scaleWidth, watermark.scaleHeight) = (scale, scale)
            }
            reading.watermark = watermark
        case "watermark_url", "wmu":
            try option.count(1...1, usage: "watermark_url is wmu:BASE64_URL")
            guard option.has(0) else {
                reading.mark = nil
                return
            }
            guard let bytes = Base64URL.decode(option.values[0]), let text = String(bytes: bytes, encoding: .utf8),
                let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "")
            else {
                throw option.failure("the watermark's URL is URL-safe base64 of an http or https URL")
            }
            reading.mark = .url(url)
        case "watermark_text", "wmt":
            try option.count(1...1, usage: "watermark_text is wmt:BASE64_TEXT")
            guard option.has(0) else {
                reading.mark = nil
                return
            }
            guard let bytes = Base64URL.decode(option.values[0]), let text = String(bytes: bytes, encoding: .utf8), !text.isEmpty,
                bytes.count <= ImageProcessors.Watermark.Mark.maximumTextBytes, !bytes.contains(0)
            else {
                throw option.failure("the watermark's text is URL-safe base64 of 1 to \(ImageProcessors.Watermark.Mark.maximumTextBytes) bytes of UTF-8")
            }
            do {
                _ = try ImageProcessors.Watermark.Mark.checkText(text)
            } catch .processingFailed(_, let reason) {
                throw option.failure("the watermark's text: \(reason)")
            } catch {
                throw option.failure("the watermark's text: \(error.description)")
            }
            reading.mark = .text(text)
        case "preserve_hdr", "ph", "enforce_thumbnail", "eth",
            "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf",
            "max_animation_frame_resolution", "mafr", "max_result_dimension", "mrd":
            throw ProxyURLError.malformed("the option '\(option.name)' is not supported by Magpie yet")
        default:
            guard let shared = ProcessingOption.named(option.name) else { throw ProxyURLError.malformed("unknown option '\(option.name)' in '\(option.segment)'") }
            try readShared(shared, values: option.values, segment: option, into: &reading)
        }
    }

    /// A processor every syntax shares, checked now so a bad value is a 400 before anything is
    /// fetched.
    private func readShared(_ shared: ProcessingOption, values: [String], segment: OptionValues, into reading: inout Reading) throws(ProxyURLError) {
        do {
            _ = try shared.processor(.init(values, limits: limits))
        } catch {
            throw segment.failure(error.description)
        }
        reading.options.processing[shared.name] = values
    }

    /// `WIDTH:HEIGHT:ENLARGE:EXTEND[:GRAVITY...]` from `index`, each part optional.
    private func readSize(_ option: OptionValues, from index: Int, into reading: inout Reading) throws(ProxyURLError) {
        if option.has(index) { reading.options.layout.width = try option.count(index, limit: limits.maximumDimension) }
        if option.has(index + 1) { reading.options.layout.height = try option.count(index + 1, limit: limits.maximumDimension) }
        if option.has(index + 2) { reading.options.layout.enlarge = try option.bool(index + 2) }
        if option.has(index + 3) { reading.options.layout.extend = try Self.extend(option, from: index + 3) }
    }

    /// imgproxy's resizing types; `cover` is thumbor's `full-fit-in`, not written in these URLs.
    private static let resizings = Layout.Resizing.allCases.filter { $0 != .cover }
    private static let resizingNames = resizings.map(\.rawValue).joined(separator: ", ")

    private static func resizing(_ option: OptionValues, _ index: Int) throws(ProxyURLError) -> Layout.Resizing {
        guard let resizing = Layout.Resizing(rawValue: option.values[index].lowercased()), resizings.contains(resizing) else {
            throw option.failure("the resizing type is one of \(resizingNames)")
        }
        return resizing
    }

    /// `EXTEND[:GRAVITY[:X:Y]]`: `nil` when off.
    private static func extend(_ option: OptionValues, from index: Int) throws(ProxyURLError) -> Placement? {
        guard try option.bool(index) else { return nil }
        return option.has(index + 1) ? try option.placement(from: index + 1, allowsSmart: false) : .centre
    }

    private static func colour(_ option: OptionValues) throws(ProxyURLError) -> Colour? {
        switch option.values.count {
        case 1 where option.values[0].isEmpty: return nil
        case 1:
            guard option.values[0].count == 6, let colour = Colour(hex: option.values[0]) else {
                throw option.failure("a background is bg:RRGGBB in hex or bg:R:G:B")
            }
            return colour
        case 3:
            let channels = option.values.compactMap { UInt8($0) }
            guard channels.count == 3 else { throw option.failure("a background's R, G and B are whole numbers from 0 to 255") }
            return Colour(red: channels[0], green: channels[1], blue: channels[2])
        default:
            throw option.failure("a background is bg:RRGGBB in hex or bg:R:G:B")
        }
    }

    /// An output format: one Magpie writes.
    private static func format(_ option: OptionValues, _ index: Int) throws(ProxyURLError) -> ImageFormat {
        let format = try anyFormat(option, index)
        guard format.isEncodable else {
            throw option.failure("Magpie writes \((ImageFormat.encodable.map(\.rawValue) + ["auto"]).joined(separator: ", ")), not \(option.values[index])")
        }
        return format
    }

    private static func anyFormat(_ option: OptionValues, _ index: Int) throws(ProxyURLError) -> ImageFormat {
        guard let format = ImageFormat(name: option.values[index].lowercased()) else {
            throw option.failure("'\(option.values[index])' is not an image format Magpie knows")
        }
        return format
    }

    private static func filename(_ option: OptionValues) throws(ProxyURLError) -> String? {
        let text = option.values[0]
        guard option.has(1), try option.bool(1) else { return text.isEmpty ? nil : text }
        guard let bytes = Base64URL.decode(text), let name = String(bytes: bytes, encoding: .utf8) else {
            throw option.failure("the file name is not URL-safe base64 of UTF-8 text")
        }
        return name
    }

    /// Options as they are read, with what is settled only at the end.
    private struct Reading {
        var options = ProxyOptions()
        /// Magpie's `fit:crop`: the box is cut from the image rather than scaled to.
        var cropsToBox = false
        /// `watermark` and the mark it lays, which may come in either order.
        var watermark: WatermarkOptions?
        var mark: WatermarkOptions.Mark?

        func finished(limits: ProcessingLimits) throws(ProxyURLError) -> ProxyOptions {
            var options = self.options
            var layout = options.layout
            if cropsToBox {
                let scale = layout.dpr
                layout.crop = Layout.Crop(
                    width: (Double(layout.width) * scale).rounded(), height: (Double(layout.height) * scale).rounded(), placement: nil)
                (layout.width, layout.height) = (0, 0)
                options.layout = layout
            }
            if var watermark, watermark.opacity > 0 {
                // As in imgproxy, a mark of its own lays nothing without `watermark`.
                watermark.mark = mark ?? .configured
                options.watermark = watermark
            }
            try options.checkSize(limits)
            return options
        }
    }
}
