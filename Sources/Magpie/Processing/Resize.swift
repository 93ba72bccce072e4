extension ImageProcessors {
    /// Brings an image to a box as a ``Fit`` says, resampling with a Lanczos-3 kernel. Images
    /// with transparency are resized premultiplied, so their edges do not darken.
    ///
    /// A resize is a ``Magpie/Layout`` (``layout``) in libvips' and Pillow's arithmetic
    /// (``Magpie/Layout/Arithmetic/direct``), carried out by ``ImageProcessors/Layout``: the
    /// names a Swift developer knows, for the one geometry every syntax reaches.
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

        /// The layout this resize is. Its decode may shrink by powers of two as far as leaves
        /// the resize twice its output (``Magpie/Layout/DecoderShrink/leavingTwice``).
        public var layout: Magpie.Layout {
            var layout = Magpie.Layout()
            layout.arithmetic = .direct
            layout.decoderShrink = .leavingTwice
            layout.enlarge = upscale
            if fit == .crop {
                layout.crop = Magpie.Layout.Crop(width: Double(width), height: Double(height), placement: gravity.placement)
            } else {
                (layout.width, layout.height, layout.resizing, layout.gravity) = (width, height, fit.resizing, gravity.placement)
            }
            return layout
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            // A side of 0 would leave it to the other in a layout; a resize names both.
            guard width > 0, height > 0 else { throw .processingFailed(processor: identifier, reason: "the box must be at least 1x1") }
            return try ImageProcessors.Layout(layout).process(image)
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
