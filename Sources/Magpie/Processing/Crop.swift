import CMagpieVips

extension ImageProcessors {
    /// Keeps part of an image: a given rectangle, or an area of a given size placed by gravity
    /// (an edge, the centre, or libvips' smart crop).
    public struct Crop: ImageProcessing, Hashable {
        /// Which part is kept.
        public enum Area: Sendable, Hashable {
            /// The rectangle with its top-left corner at `(x, y)`; it must lie inside the image.
            case rectangle(x: Int, y: Int, width: Int, height: Int)
            /// An area of this size (or the whole side, when the image is smaller) placed by
            /// `gravity`.
            case gravity(Gravity, width: Int, height: Int)
        }

        /// The part kept.
        public let area: Area

        /// Creates a crop.
        public init(_ area: Area) {
            self.area = area
        }

        public var identifier: String {
            switch area {
            case .rectangle(let x, let y, let width, let height): "magpie.crop/1?x=\(x)&y=\(y)&width=\(width)&height=\(height)"
            case .gravity(let gravity, let width, let height): "magpie.crop/1?gravity=\(gravity.rawValue)&width=\(width)&height=\(height)"
            }
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            try VipsProcessing.run(shimOptions, on: image, by: self)
        }

        /// The shim's crop operation for ``area``.
        var shimOptions: magpie_process_options {
            var options = magpie_process_options()
            options.operation = MAGPIE_OPERATION_CROP
            switch area {
            case .rectangle(let x, let y, let width, let height):
                options.x = Int32(clamping: x)
                options.y = Int32(clamping: y)
                options.width = Int32(clamping: width)
                options.height = Int32(clamping: height)
            case .gravity(let gravity, let width, let height):
                options.gravity_crop = 1
                options.gravity = gravity.shimValue
                options.width = Int32(clamping: width)
                options.height = Int32(clamping: height)
            }
            return options
        }

        public var keepsHighDepth: Bool { true }
    }
}

extension ImageProcessing where Self == ImageProcessors.Crop {
    /// Keeps the rectangle with its top-left corner at `(x, y)`.
    public static func crop(x: Int, y: Int, width: Int, height: Int) -> Self {
        ImageProcessors.Crop(.rectangle(x: x, y: y, width: width, height: height))
    }

    /// Keeps an area of `width` by `height` pixels placed by `gravity`.
    public static func crop(width: Int, height: Int, gravity: Gravity = .centre) -> Self {
        ImageProcessors.Crop(.gravity(gravity, width: width, height: height))
    }
}
