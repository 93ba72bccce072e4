import CMagpieVips

extension ImageProcessors {
    /// Sharpens with libvips' unsharp mask on lightness alone, so colours do not fringe;
    /// transparency is kept. Worth running after a large reduction, which softens edges.
    public struct Sharpen: ImageProcessing, Hashable {
        /// The largest ``sigma`` accepted.
        public static let sigmaLimit = 10.0

        /// The radius of the mask's Gaussian in pixels, above 0 and at most ``sigmaLimit``:
        /// about 0.5 for a small thumbnail, 1 to 2 for a large image.
        public let sigma: Double

        /// Creates the processor.
        public init(sigma: Double) {
            self.sigma = sigma
        }

        public var identifier: String { "magpie.sharpen/1?sigma=\(sigma)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            try VipsProcessing.run(on: image, by: self) { magpie_sharpen($0, sigma, $1, $2, $3) }
        }
    }
}

extension ImageProcessors {
    /// The classic unsharp mask on every colour band: the image plus ``amount`` times its
    /// difference from a Gaussian blur of ``sigma`` (thumbor's `sharpen`, Pillow's
    /// `UnsharpMask`). Cheaper than ``Sharpen`` on small images, which pays for a colour-space
    /// round trip and a set-up per call; it may fringe colours where ``Sharpen`` does not.
    public struct UnsharpMask: ImageProcessing, Hashable {
        public let sigma: Double
        /// 0 (nothing) ... 10; 1 adds the whole difference once.
        public let amount: Double

        public init(sigma: Double, amount: Double = 1) {
            self.sigma = sigma
            self.amount = amount
        }

        public var identifier: String { "magpie.unsharp/1?sigma=\(sigma)&amount=\(amount)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard amount > 0 else { return image }
            return try VipsProcessing.run(on: image, by: self) { magpie_unsharp($0, sigma, amount, $1, $2, $3) }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Sharpen {
    /// Sharpens with a mask of `sigma` pixels.
    public static func sharpen(sigma: Double) -> Self { ImageProcessors.Sharpen(sigma: sigma) }
}
