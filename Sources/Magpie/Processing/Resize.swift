import CMagpieVips

extension ImageProcessors {
    /// Resizes with a Lanczos-3 kernel. Images with transparency are resized premultiplied, so
    /// their edges do not darken.
    public struct Resize: ImageProcessing, Hashable {
        /// How the image is brought to the box.
        public enum Mode: Sendable, Hashable {
            /// The whole image fits inside the box; the aspect ratio is kept.
            case fit
            /// The image covers the box and is cropped to it, keeping the `gravity` side.
            case fill(Gravity = .centre)
            /// The image is stretched to the box.
            case exact
        }

        /// Width of the box in pixels.
        public let width: Int
        /// Height of the box in pixels.
        public let height: Int
        /// How the image is brought to the box.
        public let mode: Mode
        /// Whether an image smaller than the box is enlarged. By default it is not.
        public let upscale: Bool

        /// Creates a resize to a box of `width` by `height` pixels.
        public init(width: Int, height: Int, mode: Mode = .fit, upscale: Bool = false) {
            self.width = width
            self.height = height
            self.mode = mode
            self.upscale = upscale
        }

        public var identifier: String {
            "magpie.resize/1?width=\(width)&height=\(height)&mode=\(modeName)&upscale=\(upscale ? 1 : 0)"
        }

        private var modeName: String {
            switch mode {
            case .fit: "fit"
            case .fill(let gravity): "fill-\(gravity.rawValue)"
            case .exact: "exact"
            }
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            var options = magpie_process_options()
            options.operation = MAGPIE_OPERATION_RESIZE
            options.width = Int32(clamping: width)
            options.height = Int32(clamping: height)
            options.upscale = upscale ? 1 : 0
            options.mode = shimMode
            if case .fill(let gravity) = mode { options.gravity = gravity.shimValue }
            if let fullSize = image.fullSize {
                options.full_width = Int32(clamping: fullSize.width)
                options.full_height = Int32(clamping: fullSize.height)
            }
            return try VipsProcessing.run(options, on: image, identifier: identifier)
        }

        var shimMode: magpie_resize_mode {
            switch mode {
            case .fit: MAGPIE_RESIZE_FIT
            case .fill: MAGPIE_RESIZE_FILL
            case .exact: MAGPIE_RESIZE_EXACT
            }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Resize {
    /// Resizes to a box of `width` by `height` pixels; see ``ImageProcessors/Resize``.
    public static func resize(width: Int, height: Int, mode: ImageProcessors.Resize.Mode = .fit, upscale: Bool = false) -> Self {
        ImageProcessors.Resize(width: width, height: height, mode: mode, upscale: upscale)
    }
}
