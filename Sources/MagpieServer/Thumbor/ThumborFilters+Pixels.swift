import Magpie

/// thumbor's filters that change the pixels, run in the URL's order after the resize.
extension ThumborFilters {
    /// thumbor's blur kernel reaches at most this many pixels from its centre.
    static let maximumBlurRadius = 150

    static let pixels: [(String, Apply)] = [
        ("blur", blur), ("sharpen", sharpen), ("round_corner", roundCorner),
        ("brightness", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(1...1, usage: "brightness(-100 to 100)")
            // thumbor adds 255·n/100 levels in whole numbers; past ±100 every level saturates.
            let amount = max(-100, min(100, try arguments.integer(0)))
            if amount != 0 { reading.options.filters.append(ImageProcessors.Adjust(brightness: Double(255 * amount / 100))) }
        }),
        ("contrast", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(1...1, usage: "contrast(-100 to 100)")
            // thumbor scales the distance from mid-grey by ((n+100)²/100)/100, in whole numbers.
            let amount = try arguments.integer(0)
            guard abs(amount) <= 1_000 else { throw arguments.skip("a contrast that far from 0 makes every level black or white") }
            let factor = Double((amount + 100) * (amount + 100) / 100) / 100
            if factor > 10 { reading.skipped.append("\(arguments.written): contrast \(factor) applied as 10, Magpie's limit") }
            if factor != 1 { reading.options.filters.append(ImageProcessors.Adjust(contrast: min(10, factor))) }
        }),
        ("grayscale", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(0...0, usage: "grayscale()")
            reading.options.filters.append(ImageProcessors.Grayscale())
        }),
    ]

    /// `blur(RADIUS[,SIGMA])`: SIGMA is RADIUS unless given; the kernel reaches at most 150.
    private static func blur(_ arguments: ThumborArguments, _ reading: inout ThumborReading) throws(ThumborFilterFailure) {
        try arguments.expect(1...2, usage: "blur(RADIUS[,SIGMA])")
        let radius = try arguments.positiveNonZero(0)
        var sigma = arguments.has(1) ? abs(try arguments.decimal(1)) : 0
        if sigma == 0 { sigma = Double(radius) }
        let limit = reading.limits.maximumBlurSigma
        if sigma > limit { reading.skipped.append("\(arguments.written): sigma \(sigma) applied as \(limit), Magpie's limit") }
        reading.options.filters.append(ImageProcessors.GaussianBlur(sigma: min(sigma, limit)))
    }

    /// `sharpen(AMOUNT,RADIUS,LUMINANCE_ONLY)`, all three required: an unsharp mask.
    private static func sharpen(_ arguments: ThumborArguments, _ reading: inout ThumborReading) throws(ThumborFilterFailure) {
        try arguments.expect(3...3, usage: "sharpen(AMOUNT,RADIUS,LUMINANCE_ONLY)")
        let amount = try arguments.decimal(0), radius = try arguments.decimal(1)
        _ = try arguments.boolean(2)
        guard amount > 0, radius > 0 else { return }
        let limit = ImageProcessors.Sharpen.sigmaLimit
        if amount > 10 || radius > limit {
            reading.skipped.append("\(arguments.written): applied with an amount of at most 10 and a radius of at most \(limit), Magpie's limits")
        }
        reading.options.filters.append(ImageProcessors.UnsharpMask(sigma: min(radius, limit), amount: min(amount, 10)))
    }

    /// `round_corner(A[|B],R,G,B[,TRANSPARENT])`: corners cut along arcs of A (by B) pixels,
    /// on the colour R,G,B or left transparent.
    private static func roundCorner(_ arguments: ThumborArguments, _ reading: inout ThumborReading) throws(ThumborFilterFailure) {
        try arguments.expect(4...5, usage: "round_corner(A[|B],R,G,B[,TRANSPARENT])")
        let radii = arguments.values[0].split(separator: "|", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...2).contains(radii.count), radii.allSatisfy({ ($0 ?? -1) >= 0 }) else {
            throw arguments.skip("the radius is A or A|B in whole pixels")
        }
        let channels = [try arguments.positive(1), try arguments.positive(2), try arguments.positive(3)].map { UInt8(clamping: $0) }
        let transparent = arguments.has(4) ? try arguments.boolean(4) : false
        // A is across and B down, each kept within half its side, as thumbor keeps them.
        let across = min(Double(radii[0]!), Double(reading.limits.maximumDimension))
        let down = min(Double(radii.last!!), Double(reading.limits.maximumDimension))
        if across > 0, down > 0 { reading.options.filters.append(ImageProcessors.RoundedCorners(radius: across, verticalRadius: down)) }
        if !transparent { reading.options.background = Colour(red: channels[0], green: channels[1], blue: channels[2]) }
    }
}
