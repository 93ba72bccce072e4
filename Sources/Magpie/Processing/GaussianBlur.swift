import CMagpieVips

extension ImageProcessors {
    /// A Gaussian blur. Images with transparency are blurred premultiplied, so their edges do
    /// not darken.
    public struct GaussianBlur: ImageProcessing, Hashable {
        /// The Gaussian's standard deviation in pixels, above 0 and at most 1000.
        public let sigma: Double

        /// Creates a blur.
        public init(sigma: Double) {
            self.sigma = sigma
        }

        public var identifier: String { "magpie.blur/1?sigma=\(sigma)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            try VipsProcessing.run(on: image, by: self) { magpie_blur($0, sigma, $1, $2, $3) }
        }
    }

    /// Turns an image grey: each pixel's linear-light luminance (Rec. 709 weights) as an sRGB
    /// level, keeping its transparency.
    public struct Grayscale: ImageProcessing, Hashable {
        /// Creates the processor.
        public init() {}

        public var identifier: String { "magpie.grayscale/1" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            try VipsProcessing.run(on: image, by: self) { magpie_grayscale($0, $1, $2, $3) }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.GaussianBlur {
    /// A Gaussian blur of standard deviation `sigma` pixels.
    public static func blur(sigma: Double) -> Self { ImageProcessors.GaussianBlur(sigma: sigma) }
}

extension ImageProcessing where Self == ImageProcessors.Grayscale {
    /// Turns the image grey.
    public static var grayscale: Self { ImageProcessors.Grayscale() }
}
