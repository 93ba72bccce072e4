extension ProcessingOption {
    /// Every processor both syntaxes name, in the order the proxy applies them after its resize.
    public static let all: [ProcessingOption] = [blur, sharpen, pixelate, roundedCorners, circle, grayscale]

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

extension Double {
    /// Whole numbers without a decimal point, for messages.
    fileprivate var formatted: String { rounded() == self ? String(Int(self)) : String(self) }
}
