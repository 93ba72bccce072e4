import CMagpieVips

extension ImageProcessors {
    /// Each colour band times a scale plus an offset, rounded and kept within 0...255; alpha is
    /// kept. thumbor's `rgb` (offsets) and `colorize` (a blend towards a colour) are this.
    public struct Levels: ImageProcessing, Hashable {
        /// Red's, green's and blue's scale, each -10...10.
        public let scale: [Double]
        /// Levels added to red, green and blue after scaling, each -2550...2550.
        public let offset: [Double]

        public init(scale: [Double] = [1, 1, 1], offset: [Double] = [0, 0, 0]) {
            self.scale = scale
            self.offset = offset
        }

        /// Adds `red`, `green` and `blue` levels.
        public static func adding(red: Double, green: Double, blue: Double) -> Levels {
            Levels(offset: [red, green, blue])
        }

        /// Blends each band towards `colour` by its share, 0...1 (thumbor's `colorize`).
        public static func blending(towards colour: Colour, red: Double, green: Double, blue: Double) -> Levels {
            let shares = [red, green, blue]
            let levels = [Double(colour.red), Double(colour.green), Double(colour.blue)]
            return Levels(scale: shares.map { 1 - $0 }, offset: zip(shares, levels).map { $0 * $1 })
        }

        public var identifier: String {
            "magpie.levels/1?scale=\(scale.map { String($0) }.joined(separator: ","))&offset=\(offset.map { String($0) }.joined(separator: ","))"
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard scale.count == 3, offset.count == 3, scale.allSatisfy({ (-10...10).contains($0) }),
                offset.allSatisfy({ (-2550...2550).contains($0) })
            else {
                throw .processingFailed(processor: identifier, reason: "three scales from -10 to 10 and three offsets from -2550 to 2550")
            }
            guard scale != [1, 1, 1] || offset != [0, 0, 0] else { return image }
            return try VipsProcessing.run(on: image, by: self) { magpie_linear($0, scale, offset, $1, $2, $3) }
        }
    }

    /// Saturation as thumbor changes it: each colour band moved from the pixel's perceived
    /// brightness, √(.299r² + .587g² + .114b²), by `change` times its distance. 0 is grey, 1
    /// leaves the image, above 1 saturates, below 0 inverts the colours around the grey.
    /// (``Adjust``'s saturation, imgproxy's, mixes with the Rec. 709 luma instead.)
    public struct PerceivedSaturation: ImageProcessing, Hashable {
        /// -10...10.
        public let change: Double

        public init(change: Double) {
            self.change = change
        }

        public var identifier: String { "magpie.perceived-saturation/1?change=\(change)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard (-10...10).contains(change) else { throw .processingFailed(processor: identifier, reason: "the change is -10 to 10") }
            guard change != 1 else { return image }
            return try VipsProcessing.run(on: image, by: self) { magpie_saturate($0, change, $1, $2, $3) }
        }
    }

    /// Lightness and chroma multiplied and the hue turned, in CIE LCh (imagor's and sharp's
    /// `modulate`: imagor's `hue(degrees)` is a turn alone). Alpha is kept.
    public struct Modulate: ImageProcessing, Hashable {
        /// Times the lightness, 0...10.
        public let lightness: Double
        /// Times the chroma, 0...10.
        public let chroma: Double
        /// Degrees the hue turns, kept within -360...360 (a turn and that turn less 360° are one).
        public let hue: Double

        public init(lightness: Double = 1, chroma: Double = 1, hue: Double = 0) {
            self.lightness = lightness
            self.chroma = chroma
            // `+ 0` makes a remainder of -0 (a turn of -360°) 0, so equal turns name one key.
            self.hue = hue.isFinite ? hue.truncatingRemainder(dividingBy: 360) + 0 : hue
        }

        public var identifier: String { "magpie.modulate/1?lightness=\(lightness)&chroma=\(chroma)&hue=\(hue)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard (0...10).contains(lightness), (0...10).contains(chroma), hue.isFinite else {
                throw .processingFailed(processor: identifier, reason: "lightness and chroma are 0 to 10 times, the hue a number of degrees")
            }
            guard self != Modulate() else { return image }
            return try VipsProcessing.run(on: image, by: self) { magpie_modulate($0, lightness, chroma, hue, $1, $2, $3) }
        }
    }

    /// Each colour band's levels spread over 0...255 by its histogram, with thumbor's arithmetic
    /// (its `equalize`): a level becomes its cumulative share of the pixels, counted from the
    /// darkest level any band has, truncated. A band of one level is kept.
    public struct Equalize: ImageProcessing, Hashable {
        public init() {}

        public var identifier: String { "magpie.equalize/1" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            try VipsProcessing.run(on: image, by: self) { magpie_equalize($0, $1, $2, $3) }
        }
    }

    /// Grain: one random level added to every colour band of each pixel, Gaussian, the same for a
    /// given seed (thumbor's `noise`, whose levels are uniform over `amount`, has this spread).
    public struct Noise: ImageProcessing, Hashable {
        /// The noise's standard deviation in levels, 0...255.
        public let sigma: Double
        public let seed: Int

        public init(sigma: Double, seed: Int = 0) {
            self.sigma = sigma
            self.seed = seed
        }

        public var identifier: String { "magpie.noise/1?sigma=\(sigma)&seed=\(seed)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard (0...255).contains(sigma) else { throw .processingFailed(processor: identifier, reason: "the sigma is 0 to 255 levels") }
            guard sigma > 0 else { return image }
            return try VipsProcessing.run(on: image, by: self) { magpie_noise($0, sigma, Int32(truncatingIfNeeded: seed), $1, $2, $3) }
        }
    }
}
