import CMagpieVips

extension ImageProcessors {
    /// Replaces each block of pixels by its average, as used to hide faces and plates.
    public struct Pixelate: ImageProcessing, Hashable {
        /// The side of a block in pixels, at least 2.
        public let size: Int

        public init(size: Int) {
            self.size = size
        }

        public var identifier: String { "magpie.pixelate/1?size=\(size)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            try VipsProcessing.run(on: image, by: self) { magpie_pixelate($0, Int32(clamping: size), $1, $2, $3) }
        }
    }
}
