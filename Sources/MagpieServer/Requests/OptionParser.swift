import Magpie

/// Reads option segments (`name:value[:value]`) into ``ProxyOptions``, expanding presets. The
/// proxy's own options are read here; processors come from ``Magpie/ProcessingOption``, which
/// the command line reads too.
struct OptionParser: Sendable {
    /// Preset name → its option segments.
    let presets: [String: [String]]
    let limits: ProcessingLimits

    func parse(_ segments: [String]) throws(ProxyURLError) -> ProxyOptions {
        var options = ProxyOptions()
        for segment in segments {
            try apply(segment, to: &options, expandingPresets: true)
        }
        try check(options)
        return options
    }

    private func apply(_ segment: String, to options: inout ProxyOptions, expandingPresets: Bool) throws(ProxyURLError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0].lowercased()
        let arguments = Array(parts.dropFirst())
        func one() throws(ProxyURLError) -> String {
            guard arguments.count == 1, !arguments[0].isEmpty else {
                throw .malformed("option '\(segment)': '\(name)' takes one value")
            }
            return arguments[0]
        }
        switch name {
        case "s", "size":
            guard (1...2).contains(arguments.count) else { throw .malformed("option '\(segment)': size is s:WIDTH:HEIGHT") }
            options.width = try dimension(arguments[0], segment)
            options.height = arguments.count == 2 ? try dimension(arguments[1], segment) : 0
        case "w", "width": options.width = try dimension(try one(), segment)
        case "h", "height": options.height = try dimension(try one(), segment)
        case "fit":
            guard let fit = Self.fits[try one().lowercased()] else {
                throw .malformed("option '\(segment)': fit is one of fit, fill, crop")
            }
            options.fit = fit
        case "g", "gravity":
            guard let gravity = Self.gravities[try one().lowercased()] else {
                throw .malformed("option '\(segment)': gravity is one of centre, north, south, east, west, smart, entropy")
            }
            options.gravity = gravity
        case "q", "quality":
            guard let quality = Int(try one()), (1...100).contains(quality) else {
                throw .malformed("option '\(segment)': quality is a whole number from 1 to 100")
            }
            options.quality = quality
        case "f", "format", "ext":
            let value = try one().lowercased()
            if value == "auto" {
                options.format = .auto
            } else if let format = ImageFormat(name: value), format.isEncodable {
                options.format = .fixed(format)
            } else {
                let names = ImageFormat.encodable.map(\.rawValue) + ["auto"]
                throw .malformed("option '\(segment)': format is one of \(names.joined(separator: ", "))")
            }
        case "dpr":
            guard let dpr = Double(try one()), dpr > 0, dpr <= 4 else {
                throw .malformed("option '\(segment)': dpr is a number above 0 and at most 4")
            }
            options.dpr = dpr
        case "ff", "first-frame":
            let value = arguments.isEmpty ? "1" : try one().lowercased()
            guard let flag = ["1": true, "t": true, "true": true, "0": false, "f": false, "false": false][value] else {
                throw .malformed("option '\(segment)': first-frame is 1 or 0")
            }
            options.firstFrame = flag
        case "pr", "preset":
            guard expandingPresets else { throw .malformed("option '\(segment)': a preset cannot name another preset") }
            guard !arguments.isEmpty else { throw .malformed("option '\(segment)': preset takes a name") }
            for presetName in arguments {
                guard let preset = presets[presetName] else { throw .malformed("option '\(segment)': no preset named '\(presetName)'") }
                for part in preset { try apply(part, to: &options, expandingPresets: false) }
            }
        default:
            guard let option = ProcessingOption.named(name) else { throw .malformed("unknown option '\(name)' in '\(segment)'") }
            // Checked now, in CSS pixels, so a bad value is a 400 before anything is fetched.
            do {
                _ = try option.processor(.init(arguments, limits: limits))
            } catch {
                throw .malformed("option '\(segment)': \(error.description)")
            }
            options.processing[option.name] = arguments
        }
    }

    private func dimension(_ text: String, _ segment: String) throws(ProxyURLError) -> Int {
        guard let value = Int(text), value >= 0, value <= limits.maximumDimension else {
            throw .malformed("option '\(segment)': sizes are whole numbers from 0 to \(limits.maximumDimension)")
        }
        return value
    }

    private func check(_ options: ProxyOptions) throws(ProxyURLError) {
        let (width, height) = (options.pixelWidth, options.pixelHeight)
        guard width <= limits.maximumDimension, height <= limits.maximumDimension else {
            throw .malformed("the output would be \(width)x\(height) pixels; at most \(limits.maximumDimension) on a side")
        }
        guard width * height <= limits.maximumOutputPixels else {
            throw .malformed("the output would be \(width)x\(height) pixels; at most \(limits.maximumOutputPixels) in all")
        }
        if options.fit != .fit, width == 0 || height == 0 {
            throw .malformed("fit:\(options.fit.rawValue) needs both a width and a height")
        }
    }

    private static let fits: [String: Fit] = ["fit": .fit, "fill": .fill, "crop": .crop]

    private static let gravities: [String: Gravity] = [
        "ce": .centre, "centre": .centre, "center": .centre,
        "no": .top, "north": .top, "top": .top,
        "so": .bottom, "south": .bottom, "bottom": .bottom,
        "ea": .right, "east": .right, "right": .right,
        "we": .left, "west": .left, "left": .left,
        "sm": .attention, "smart": .attention, "attention": .attention,
        "entropy": .entropy,
    ]
}
