import Foundation
import Magpie

/// Reads option segments (`name:value:value`) into ``ProxyOptions`` with imgproxy's names and
/// meanings, expanding presets (the `default` preset first, when there is one). Processors
/// shared with the command line come from ``Magpie/ProcessingOption`` (and a deployment's own,
/// ``ProxyConfiguration/processingOptions``). An option that is unknown, malformed, or one Magpie
/// does not carry out is refused with imgproxy's status for a URL it cannot read, 404, naming
/// it; never ignored.
struct OptionParser: Sendable {
    /// Preset name → its option segments.
    let presets: [String: [String]]
    let limits: ProcessingLimits
    /// For `expires`.
    var now: @Sendable () -> Date = { Date() }
    /// The operator's limits that security options may lower.
    var security = Security()
    /// The separator and the options a URL may write.
    var rules = ImgproxyURLRules()
    /// The processors named beside imgproxy's options (``ProxyConfiguration/processingOptions``).
    var processingOptions = ProcessingOption.all

    /// Reads a URL's option segments, then the format its source's extension names (`@png`,
    /// `.webp`), which is the last word on the format.
    func parse(_ segments: [String], fileExtension: String? = nil) throws(ProxyURLError) -> ProxyOptions {
        var reading = Reading()
        reading.options.limits.resultDimension = security.resultDimension
        if let preset = presets["default"] {
            try apply(preset, to: &reading, presetsInUse: ["default"])
        }
        if rules.onlyPresets, let names = segments.first {
            try apply(["pr:" + names.replacingOccurrences(of: String(rules.argumentsSeparator), with: ":")], to: &reading, presetsInUse: [])
        } else {
            try apply(segments, to: &reading, presetsInUse: [], writtenInURL: true)
        }
        if let fileExtension, !reading.options.raw {
            try apply(["f:" + fileExtension], to: &reading, presetsInUse: [])
        }
        return try reading.finished(limits: limits, processingOptions: processingOptions)
    }

    /// Applies option segments; those `writtenInURL` are read with the deployment's separator
    /// and held to its allowed options (presets are the operator's own, written with colons).
    private func apply(_ segments: [String], to reading: inout Reading, presetsInUse: Set<String>, writtenInURL: Bool = false) throws(ProxyURLError) {
        for segment in segments {
            let option = OptionValues(segment, separator: writtenInURL ? rules.argumentsSeparator : ":")
            if writtenInURL, let allowed = rules.allowedOptions, !allowed.contains(option.name) {
                throw ProxyURLError.malformed("the option '\(option.name)' is not among those allowed here (IMGPROXY_ALLOWED_PROCESSING_OPTIONS)")
            }
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
        let shared = ProcessingOption.named(option.name, in: processingOptions)
        guard !option.values.isEmpty || shared != nil else {
            throw option.failure("\(option.name) takes a value after a colon")
        }
        if let reader = Self.readers[option.name] {
            try reader(option, &reading, self)
        } else if let shared {
            readShared(shared, values: option.values, segment: option, into: &reading)
        } else {
            throw ProxyURLError.malformed("unknown option '\(option.name)' in '\(option.segment)'")
        }
    }

    /// Reads one option into `reading`, with the parser's limits and clock.
    typealias Reader = @Sendable (OptionValues, inout Reading, OptionParser) throws(ProxyURLError) -> Void

    /// Every option's reader by each of its names (imgproxy's long and short ones).
    private static let readers: [String: Reader] = {
        var table: [String: Reader] = [:]
        for (names, reader) in geometryReaders + outputReaders + effectReaders + securityReaders + refusedReaders {
            for name in names {
                precondition(table[name] == nil, "option '\(name)' is read twice")
                table[name] = reader
            }
        }
        return table
    }()

    /// The first name among `options`' that one of imgproxy's options (or another of them)
    /// already has, if any: a deployment's own processors may not shadow them.
    static func clashingName(among options: [ProcessingOption]) -> String? {
        var seen: Set<String> = ["pr", "preset"]
        seen.formUnion(readers.keys)
        for name in options.flatMap(\.names) {
            guard seen.insert(name).inserted else { return name }
        }
        return nil
    }

    /// Options imgproxy has that Magpie does not carry out yet: a 400 naming them.
    private static let refusedReaders: [(names: [String], read: Reader)] = [
        (["enforce_thumbnail", "eth"],
         { option, _, _ throws(ProxyURLError) in throw ProxyURLError.malformed("the option '\(option.name)' is not supported by Magpie yet") }),
    ]

    /// A processor every syntax shares: a later segment replaces an earlier one, and it is built
    /// once the pixel ratio is known (``Reading/finished(limits:)``).
    func readShared(_ shared: ProcessingOption, values: [String], segment: OptionValues, into reading: inout Reading) {
        reading.shared[shared.name] = (values, segment)
    }

    /// `WIDTH:HEIGHT:ENLARGE:EXTEND[:GRAVITY...]` from `index`, each part optional.
    func readSize(_ option: OptionValues, from index: Int, into reading: inout Reading) throws(ProxyURLError) {
        if option.has(index) { reading.options.layout.width = try option.count(index, limit: limits.maximumDimension) }
        if option.has(index + 1) { reading.options.layout.height = try option.count(index + 1, limit: limits.maximumDimension) }
        if option.has(index + 2) { reading.options.layout.enlarge = try option.bool(index + 2) }
        if option.has(index + 3) { reading.options.layout.extend = try Self.extend(option, from: index + 3) }
    }

    /// imgproxy's resizing types; `cover` is thumbor's `full-fit-in`, not written in these URLs.
    static let resizings = Layout.Resizing.allCases.filter { $0 != .cover }
    static let resizingNames = resizings.map(\.rawValue).joined(separator: ", ")

    static func resizing(_ option: OptionValues, _ index: Int) throws(ProxyURLError) -> Layout.Resizing {
        guard let resizing = Layout.Resizing(rawValue: option.values[index].lowercased()), resizings.contains(resizing) else {
            throw option.failure("the resizing type is one of \(resizingNames)")
        }
        return resizing
    }

    /// `EXTEND[:GRAVITY[:X:Y]]`: `nil` when off.
    static func extend(_ option: OptionValues, from index: Int) throws(ProxyURLError) -> Placement? {
        guard try option.bool(index) else { return nil }
        return option.has(index + 1) ? try option.placement(from: index + 1, allowsSmart: false) : .centre
    }

    static func colour(_ option: OptionValues) throws(ProxyURLError) -> Colour? {
        switch option.values.count {
        case 1 where option.values[0].isEmpty: return nil
        case 1:
            guard let colour = Colour(opaqueHex: option.values[0]) else {
                throw option.failure("a background is bg:RRGGBB (or RGB) in hex or bg:R:G:B")
            }
            return colour
        case 3:
            let channels = option.values.compactMap { UInt8($0) }
            guard channels.count == 3 else { throw option.failure("a background's R, G and B are whole numbers from 0 to 255") }
            return Colour(red: channels[0], green: channels[1], blue: channels[2])
        default:
            throw option.failure("a background is bg:RRGGBB (or RGB) in hex or bg:R:G:B")
        }
    }

    /// An output format: one Magpie writes. A format it knows but cannot write (`svg` from a
    /// raster source, `heic`) is a 422, as imgproxy answers: the URL is well formed, the image
    /// cannot be made.
    static func format(_ option: OptionValues, _ index: Int) throws(ProxyURLError) -> ImageFormat {
        let format = try anyFormat(option, index)
        guard format.isEncodable else {
            let writable = (ImageFormat.encodable.map(\.rawValue) + ["auto"]).joined(separator: ", ")
            throw ProxyURLError(status: 422, message: option.failure("Magpie writes \(writable), not \(option.values[index])").message)
        }
        return format
    }

    static func anyFormat(_ option: OptionValues, _ index: Int) throws(ProxyURLError) -> ImageFormat {
        guard let format = ImageFormat(name: option.values[index].lowercased()) else {
            throw option.failure("'\(option.values[index])' is not an image format Magpie knows")
        }
        return format
    }

    static func filename(_ option: OptionValues) throws(ProxyURLError) -> String? {
        let text = option.values[0]
        guard option.has(1), try option.bool(1) else { return text.isEmpty ? nil : text }
        guard let bytes = Base64URL.decode(text), let name = String(bytes: bytes, encoding: .utf8) else {
            throw option.failure("the file name is not URL-safe base64 of UTF-8 text")
        }
        return name
    }

    /// Options as they are read, with what is settled only at the end.
    struct Reading {
        var options = ProxyOptions()
        /// Magpie's `fit:crop`: the box is cut from the image rather than scaled to.
        var cropsToBox = false
        /// `watermark` and the mark it lays, which may come in either order.
        var watermark: WatermarkOptions?
        var mark: WatermarkOptions.Mark?
        /// The shared processors asked for by name, with their values and the segment that asked.
        var shared: [String: (values: [String], segment: OptionValues)] = [:]

        func finished(limits: ProcessingLimits, processingOptions: [ProcessingOption]) throws(ProxyURLError) -> ProxyOptions {
            var options = self.options
            var layout = options.layout
            if cropsToBox {
                let scale = layout.dpr
                layout.crop = Layout.Crop(
                    width: (Double(layout.width) * scale).rounded(), height: (Double(layout.height) * scale).rounded(), placement: nil)
                (layout.width, layout.height) = (0, 0)
                options.layout = layout
            }
            for option in processingOptions {
                guard let (values, segment) = shared[option.name] else { continue }
                let scale = option.scalesWithPixelRatio ? layout.dpr : 1
                do {
                    if let processor = try option.processor(.init(values, scale: scale, limits: limits)) { options.filters.append(processor) }
                } catch {
                    throw segment.failure(error.description)
                }
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

/// The values of one option segment, read the way imgproxy reads them; every failure names the
/// segment.
struct OptionValues {
    let segment: String
    let name: String
    let values: [String]

    init(_ segment: String, separator: Unicode.Scalar = ":") {
        self.segment = segment
        let parts = ProxyPath.split(segment, at: separator)
        name = parts[0]
        values = Array(parts.dropFirst())
    }

    func failure(_ reason: String) -> ProxyURLError {
        .malformed("option '\(segment)': \(reason)")
    }

    /// Whether the `index`th value is given and not empty.
    func has(_ index: Int) -> Bool { index < values.count && !values[index].isEmpty }

    func count(_ range: ClosedRange<Int>, usage: String) throws(ProxyURLError) {
        guard range.contains(values.count) else { throw failure(usage) }
    }

    /// A boolean as Go's `strconv.ParseBool` reads it: 1, t, true, 0, f, false in any case.
    func bool(_ index: Int = 0) throws(ProxyURLError) -> Bool {
        guard index < values.count else { throw failure("\(name) takes 1 (true) or 0 (false)") }
        switch values[index].lowercased() {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw failure("'\(values[index])' is not 1 (true) or 0 (false)")
        }
    }

    /// A whole number of at least 0 and at most `limit`.
    func count(_ index: Int = 0, limit: Int) throws(ProxyURLError) -> Int {
        guard index < values.count, let value = Int(values[index]), value >= 0, value <= limit else {
            throw failure("'\(index < values.count ? values[index] : "")' is not a whole number from 0 to \(limit)")
        }
        return value
    }

    /// A finite number in `range`.
    func number(_ index: Int = 0, in range: ClosedRange<Double>, what: String) throws(ProxyURLError) -> Double {
        guard index < values.count, let value = Double(values[index]), value.isFinite, range.contains(value) else {
            throw failure("\(what) is a number from \(Self.text(range.lowerBound)) to \(Self.text(range.upperBound))")
        }
        return value
    }

    /// A number above 0 and at most `limit`.
    func positive(_ index: Int = 0, limit: Double, what: String) throws(ProxyURLError) -> Double {
        guard index < values.count, let value = Double(values[index]), value.isFinite, value > 0, value <= limit else {
            throw failure("\(what) is a number above 0 and at most \(Self.text(limit))")
        }
        return value
    }

    /// A placement from the values starting at `index`: a compass point with offsets, `sm`
    /// (or Magpie's `entropy`), or `fp:X:Y`; `allowsSmart` is false for canvases.
    func placement(from index: Int, allowsSmart: Bool = true) throws(ProxyURLError) -> Placement {
        guard index < values.count else { throw failure("a gravity is one of \(Self.gravityNames(allowsSmart))") }
        let rest = Array(values[index...])
        let type = rest[0].lowercased()
        if type == "fp" {
            guard rest.count == 3, let x = Double(rest[1]), let y = Double(rest[2]), (0...1).contains(x), (0...1).contains(y) else {
                throw failure("a focus point is fp:X:Y with X and Y from 0 to 1")
            }
            return .focusPoint(x: x, y: y)
        }
        if let smart = Self.smart[type] {
            guard allowsSmart else { throw failure("'\(type)' is a crop's gravity; here it is one of \(Self.gravityNames(false))") }
            guard rest.count == 1 else { throw failure("'\(type)' takes no offsets") }
            return .smart(smart)
        }
        guard let anchor = Self.anchors[type] else { throw failure("'\(rest[0])' is not a gravity; one of \(Self.gravityNames(allowsSmart))") }
        guard rest.count <= 3 else { throw failure("a gravity takes at most an x and a y offset") }
        var offsets = (x: 0.0, y: 0.0)
        for (position, text) in rest.dropFirst().enumerated() where !text.isEmpty {
            guard let value = Double(text), value.isFinite, abs(value) <= 100_000 else { throw failure("the offset '\(text)' is not a number") }
            if position == 0 { offsets.x = value } else { offsets.y = value }
        }
        return .anchored(anchor, x: offsets.x, y: offsets.y)
    }

    static let anchors: [String: Placement.Anchor] = [
        "ce": .centre, "no": .north, "so": .south, "ea": .east, "we": .west,
        "noea": .northEast, "nowe": .northWest, "soea": .southEast, "sowe": .southWest,
        // Magpie's own spellings, kept from before imgproxy's were read.
        "centre": .centre, "center": .centre, "north": .north, "top": .north, "south": .south, "bottom": .south,
        "east": .east, "right": .east, "west": .west, "left": .west,
    ]
    static let smart: [String: Gravity] = ["sm": .attention, "smart": .attention, "attention": .attention, "entropy": .entropy]

    private static func gravityNames(_ allowsSmart: Bool) -> String {
        (["ce", "no", "so", "ea", "we", "noea", "nowe", "soea", "sowe"] + (allowsSmart ? ["sm", "entropy"] : []) + ["fp:X:Y"])
            .joined(separator: ", ")
    }

    private static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
