import CMagpieVips

extension ImageProcessors {
    /// Brings an image to a box as a ``Fit`` says, resampling with a Lanczos-3 kernel. Images
    /// with transparency are resized premultiplied, so their edges do not darken.
    public struct Resize: ImageProcessing, Hashable {
        /// Width of the box in pixels.
        public let width: Int
        /// Height of the box in pixels.
        public let height: Int
        /// How the image is brought to the box.
        public let fit: Fit
        /// The side kept when ``fit`` is ``Fit/fill`` or ``Fit/crop``.
        public let gravity: Gravity
        /// Whether an image smaller than the box is enlarged. By default it is not.
        public let upscale: Bool

        /// Creates a resize to a box of `width` by `height` pixels.
        public init(width: Int, height: Int, fit: Fit = .fit, gravity: Gravity = .centre, upscale: Bool = false) {
            self.width = width
            self.height = height
            self.fit = fit
            self.gravity = gravity
            self.upscale = upscale
        }

        public var identifier: String {
            "magpie.resize/1?width=\(width)&height=\(height)&mode=\(modeName)&upscale=\(upscale ? 1 : 0)"
        }

        private var modeName: String {
            switch fit {
            case .fill, .crop: "\(fit.rawValue)-\(gravity.rawValue)"
            case .fit, .cover, .exact: fit.rawValue
            }
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            if fit == .crop { return try Crop(.gravity(gravity, width: width, height: height)).process(image) }
            var box = magpie_resize_box(
                width: Int32(clamping: width), height: Int32(clamping: height), fit: fit.shimValue, gravity: gravity.shimValue,
                upscale: upscale ? 1 : 0, full_width: 0, full_height: 0)
            if let fullSize = image.fullSize {
                box.full_width = Int32(clamping: fullSize.width)
                box.full_height = Int32(clamping: fullSize.height)
            }
            return try VipsProcessing.run(on: image, by: self) { magpie_resize($0, &box, $1, $2, $3) }
        }

        public var keepsHighDepth: Bool { true }
    }
}

extension ImageProcessing where Self == ImageProcessors.Resize {
    /// Brings the image to a box of `width` by `height` pixels; see ``ImageProcessors/Resize``.
    public static func resize(width: Int, height: Int, fit: Fit = .fit, gravity: Gravity = .centre, upscale: Bool = false) -> Self {
        ImageProcessors.Resize(width: width, height: height, fit: fit, gravity: gravity, upscale: upscale)
    }
}
