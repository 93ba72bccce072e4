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
            var area = shimArea
            return try VipsProcessing.run(on: image, by: self) { magpie_crop($0, &area, $1, $2, $3) }
        }

        /// The shim's description of ``area``.
        var shimArea: magpie_crop_area {
            switch area {
            case .rectangle(let x, let y, let width, let height):
                magpie_crop_area(
                    width: Int32(clamping: width), height: Int32(clamping: height), x: Int32(clamping: x), y: Int32(clamping: y),
                    by_gravity: 0, gravity: MAGPIE_GRAVITY_CENTRE)
            case .gravity(let gravity, let width, let height):
                magpie_crop_area(
                    width: Int32(clamping: width), height: Int32(clamping: height), x: 0, y: 0, by_gravity: 1, gravity: gravity.shimValue)
            }
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
