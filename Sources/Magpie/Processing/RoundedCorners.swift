import CMagpieVips

extension ImageProcessors {
    /// Makes the corners transparent outside arcs of ``radius`` pixels (elliptical ones, with
    /// ``verticalRadius``), with anti-aliased edges. Store the result as PNG or WebP: JPEG has
    /// no transparency.
    public struct RoundedCorners: ImageProcessing, Hashable {
        /// The corner radius in pixels, across; with no ``verticalRadius``, down as well, and then
        /// at most half the shorter side is used.
        public let radius: Double
        /// The radius down, for elliptical corners (thumbor's `round_corner(A|B,...)`); at most
        /// half the height is used, and at most half the width across.
        public let verticalRadius: Double?

        /// Creates the processor: circular corners, or elliptical ones `radius` across and
        /// `verticalRadius` down.
        public init(radius: Double, verticalRadius: Double? = nil) {
            self.radius = radius
            self.verticalRadius = verticalRadius
        }

        public var identifier: String {
            "magpie.rounded-corners/1?radius=\(radius)" + (verticalRadius.map { "&vertical=\($0)" } ?? "")
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            // Works a byte a sample.
            let image = image.narrowedToEightBits()
            guard radius >= 0, radius.isFinite, (verticalRadius ?? 0) >= 0, verticalRadius?.isFinite ?? true else {
                throw .processingFailed(processor: identifier, reason: "the radius must be 0 or more")
            }
            // Circular corners keep to half the shorter side, so they stay circular.
            let shorter = Double(min(image.width, image.height)) / 2
            let (across, down) = verticalRadius.map { (radius, $0) } ?? (min(radius, shorter), min(radius, shorter))
            var pixels = image.pixels
            let frameBytes = image.width * image.height * 4
            pixels.withUnsafeMutableBufferPointer { buffer in
                guard let start = buffer.baseAddress else { return }
                for frame in 0..<image.frameCount {
                    magpie_round_corners(start + frame * frameBytes, Int32(image.width), Int32(image.height), across, down)
                }
            }
            return image.replacingPixels(pixels, width: image.width, height: image.height)
        }
    }

    /// Crops the largest centred square and makes everything outside its inscribed circle
    /// transparent, with an anti-aliased edge.
    public struct Circle: ImageProcessing, Hashable {
        /// Creates the processor.
        public init() {}

        public var identifier: String { "magpie.circle/1" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            // Works a byte a sample.
            let image = image.narrowedToEightBits()
            let side = min(image.width, image.height)
            let square = side == image.width && side == image.height
                ? image : try Crop(.gravity(.centre, width: side, height: side)).process(image)
            return try RoundedCorners(radius: Double(side) / 2).process(square)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.RoundedCorners {
    /// Rounds the corners with arcs of `radius` pixels.
    public static func roundedCorners(radius: Double) -> Self { ImageProcessors.RoundedCorners(radius: radius) }
}

extension ImageProcessing where Self == ImageProcessors.Circle {
    /// Crops to a centred circle.
    public static var circle: Self { ImageProcessors.Circle() }
}
