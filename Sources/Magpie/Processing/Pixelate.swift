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
            var options = magpie_process_options()
            options.operation = MAGPIE_OPERATION_PIXELATE
            options.width = Int32(clamping: size)
            return try VipsProcessing.run(options, on: image, by: self)
        }
    }
}
