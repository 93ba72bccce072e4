extension ProcessingOption {
    /// Every processor both syntaxes name, in the order the proxy applies them after its resize.
    public static let all: [ProcessingOption] = [adjust, hue, blur, sharpen, unsharp, pixelate, roundedCorners, circle, grayscale, monochrome, duotone]

    static let adjust = ProcessingOption(names: ["adjust", "a"], usage: "adjust:BRIGHTNESS:CONTRAST:SATURATION", scalesWithPixelRatio: false) {
        arguments throws(Failure) in
        let usage = "adjust takes a brightness from -255 to 255, a contrast and a saturation from 0 to 10 (1 leaves them), e.g. adjust:10:1.2:0.8"
        let values = arguments.values
        guard (1...3).contains(values.count) else { throw Failure(usage) }
        func value(_ index: Int, _ range: ClosedRange<Double>, default fallback: Double) throws(Failure) -> Double {
            guard index < values.count, !values[index].isEmpty else { return fallback }
            guard let number = Double(values[index]), range.contains(number) else { throw Failure(usage) }
            return number
        }
        let adjust = ImageProcessors.Adjust(
            brightness: try value(0, -255...255, default: 0), contrast: try value(1, 0...10, default: 1),
            saturation: try value(2, 0...10, default: 1))
        return adjust == ImageProcessors.Adjust() ? nil : adjust
    }

    /// Magpie's own, imgproxy-style (imagor's `hue(DEGREES)` in the thumbor syntax).
    static let hue = ProcessingOption(names: ["hue"], usage: "hue:DEGREES", scalesWithPixelRatio: false) { arguments throws(Failure) in
        let degrees = try arguments.number(-3600...3600, usage: "hue takes the degrees the hue turns, from -3600 to 3600, e.g. hue:90")
        let turn = ImageProcessors.Modulate(hue: degrees)
        return turn == ImageProcessors.Modulate() ? nil : turn
    }

    static let blur = ProcessingOption(names: ["blur", "bl"], usage: "blur:SIGMA", scalesWithPixelRatio: false) { arguments throws(Failure) in
        let limit = arguments.limits.maximumBlurSigma
        let sigma = try arguments.number(0...limit, usage: "blur takes a sigma in pixels from 0 (none) to \(limit.formatted), e.g. blur:2")
        return sigma > 0 ? ImageProcessors.GaussianBlur(sigma: sigma * arguments.scale) : nil
    }

    static let sharpen = ProcessingOption(names: ["sharpen", "sh"], usage: "sharpen:SIGMA", scalesWithPixelRatio: false) { arguments throws(Failure) in
        let limit = ImageProcessors.Sharpen.sigmaLimit
        let sigma = try arguments.number(0...limit, usage: "sharpen takes a sigma in pixels from 0 (none) to \(limit.formatted), e.g. sharpen:1")
        return sigma > 0 ? ImageProcessors.Sharpen(sigma: min(limit, sigma * arguments.scale)) : nil
    }

    static let unsharp = ProcessingOption(names: ["unsharp", "usm"], usage: "unsharp:SIGMA:AMOUNT", scalesWithPixelRatio: false) {
        arguments throws(Failure) in
        let usage = "unsharp takes a sigma in pixels above 0 and at most 10 and an amount from 0 to 10 (1 unless given), e.g. unsharp:1:1.5"
        let values = arguments.values
        guard (1...2).contains(values.count), let sigma = Double(values[0]), sigma > 0, sigma <= ImageProcessors.Sharpen.sigmaLimit else {
            throw Failure(usage)
        }
        let amount = values.count > 1 ? Double(values[1]) : 1
        guard let amount, (0...10).contains(amount) else { throw Failure(usage) }
        return amount > 0 ? ImageProcessors.UnsharpMask(sigma: min(ImageProcessors.Sharpen.sigmaLimit, sigma * arguments.scale), amount: amount) : nil
    }

    static let pixelate = ProcessingOption(names: ["pixelate", "pix"], usage: "pixelate:SIZE", scalesWithPixelRatio: false) {
        arguments throws(Failure) in
        let limit = Double(arguments.limits.maximumDimension)
        let size = try arguments.number(0...limit, usage: "pixelate takes a block size in pixels from 0 (none) to \(limit.formatted), e.g. pixelate:8")
        guard size == size.rounded() else { throw Failure("pixelate takes a whole number of pixels, e.g. pixelate:8") }
        return size > 1 ? ImageProcessors.Pixelate(size: Int((size * arguments.scale).rounded())) : nil
    }

    static let roundedCorners = ProcessingOption(names: ["round", "r"], usage: "round:RADIUS") { arguments throws(Failure) in
        let limit = Double(arguments.limits.maximumDimension)
        let radius = try arguments.number(0...limit, usage: "give the corner radius in pixels, from 0 to \(limit.formatted), e.g. round:16")
        return radius > 0 ? ImageProcessors.RoundedCorners(radius: radius * arguments.scale) : nil
    }

    static let circle = ProcessingOption(names: ["circle"], usage: "circle") { arguments throws(Failure) in
        try arguments.isOn(usage: "circle takes no value but 1 or 0") ? ImageProcessors.Circle() : nil
    }

    static let grayscale = ProcessingOption(names: ["grayscale", "greyscale", "gray", "grey"], usage: "grayscale") {
        arguments throws(Failure) in
        try arguments.isOn(usage: "grayscale takes no value but 1 or 0") ? ImageProcessors.Grayscale() : nil
    }
}

extension ProcessingOption {
    static let monochrome = ProcessingOption(names: ["monochrome", "mc"], usage: "monochrome:INTENSITY:RRGGBB", scalesWithPixelRatio: false) {
        arguments throws(Failure) in
        let usage = "monochrome takes an intensity from 0 to 1 and a colour in hex (b3b3b3 unless given), e.g. monochrome:1:3366cc"
        let values = arguments.values
        guard (1...2).contains(values.count), let intensity = Double(values[0]), (0...1).contains(intensity) else { throw Failure(usage) }
        let colour = try hexColour(values, 1, default: Colour(red: 0xB3, green: 0xB3, blue: 0xB3), usage: usage)
        return intensity > 0 ? ImageProcessors.Tint.monochrome(colour, intensity: intensity) : nil
    }

    static let duotone = ProcessingOption(names: ["duotone", "dt"], usage: "duotone:INTENSITY:SHADOWS:HIGHLIGHTS", scalesWithPixelRatio: false) {
        arguments throws(Failure) in
        let usage = "duotone takes an intensity from 0 to 1 and two colours in hex (000000 and ffffff unless given), e.g. duotone:1:1e3264:f0c850"
        let values = arguments.values
        guard (1...3).contains(values.count), let intensity = Double(values[0]), (0...1).contains(intensity) else { throw Failure(usage) }
        let shadows = try hexColour(values, 1, default: .black, usage: usage)
        let highlights = try hexColour(values, 2, default: .white, usage: usage)
        return intensity > 0 ? ImageProcessors.Tint.duotone(shadows: shadows, highlights: highlights, intensity: intensity) : nil
    }

    private static func hexColour(_ values: [String], _ index: Int, default fallback: Colour, usage: String) throws(Failure) -> Colour {
        guard index < values.count, !values[index].isEmpty else { return fallback }
        guard let colour = Colour(opaqueHex: values[index]) else { throw Failure(usage) }
        return colour
    }
}

extension Double {
    /// Whole numbers without a decimal point, for messages.
    fileprivate var formatted: String { rounded() == self ? String(Int(self)) : String(self) }
}
