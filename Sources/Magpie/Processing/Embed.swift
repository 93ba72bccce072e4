import CMagpieVips

extension ImageProcessors {
    /// Places an image on a larger canvas of one colour: extending to a size or an aspect
    /// ratio, and padding.
    public struct Embed: ImageProcessing, Hashable {
        /// The canvas, in pixels; at least the image's size.
        public let width: Int
        public let height: Int
        /// Where the image's top-left corner goes on the canvas.
        public let x: Int
        public let y: Int
        /// The canvas's colour; transparent by default, so the output format decides what shows.
        public let background: Colour

        public init(width: Int, height: Int, x: Int, y: Int, background: Colour = .transparent) {
            self.width = width
            self.height = height
            self.x = x
            self.y = y
            self.background = background
        }

        public var identifier: String {
            "magpie.embed/1?width=\(width)&height=\(height)&x=\(x)&y=\(y)&background=\(background)"
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard width != image.width || height != image.height else { return image }
            var options = magpie_process_options()
            options.operation = MAGPIE_OPERATION_EMBED
            options.width = Int32(clamping: width)
            options.height = Int32(clamping: height)
            options.x = Int32(clamping: x)
            options.y = Int32(clamping: y)
            options.background = background.channels
            return try VipsProcessing.run(options, on: image, identifier: identifier)
        }
    }

    /// Composites an image over an opaque colour, so formats without transparency show that
    /// colour where the image was transparent instead of black.
    public struct Flatten: ImageProcessing, Hashable {
        /// The colour underneath; its alpha is ignored.
        public let background: Colour

        public init(background: Colour) {
            self.background = Colour(red: background.red, green: background.green, blue: background.blue)
        }

        public var identifier: String { "magpie.flatten/1?background=\(background)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            var options = magpie_process_options()
            options.operation = MAGPIE_OPERATION_FLATTEN
            options.background = background.channels
            return try VipsProcessing.run(options, on: image, identifier: identifier)
        }
    }
}
