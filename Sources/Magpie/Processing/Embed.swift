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
            let canvas = (width: Int32(clamping: width), height: Int32(clamping: height), x: Int32(clamping: x), y: Int32(clamping: y))
            let colour = background.channels
            return try VipsProcessing.run(on: image, by: self) {
                magpie_embed($0, canvas.width, canvas.height, canvas.x, canvas.y, colour, $1, $2, $3)
            }
        }

        public var keepsHighDepth: Bool { true }
    }

    /// Composites an image over a colour, so formats without transparency show that colour
    /// where the image was transparent instead of black. A colour with alpha below 255 leaves
    /// the result that transparent where the image was (imgproxy's `background_alpha`).
    public struct Flatten: ImageProcessing, Hashable {
        /// The colour underneath.
        public let background: Colour

        public init(background: Colour) {
            self.background = background
        }

        public var identifier: String { "magpie.flatten/1?background=\(background)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            // The translucent blend works a byte a sample.
            guard background.alpha == 255 else { return over(image.narrowedToEightBits()) }
            let colour = Array(background.channels.prefix(3))
            return try VipsProcessing.run(on: image, by: self) { magpie_flatten($0, colour, $1, $2, $3) }
        }

        /// Onto an opaque colour; a translucent one narrows to 8 bits.
        public var keepsHighDepth: Bool { background.alpha == 255 }

        /// Porter-Duff "over" onto the translucent colour, in straight alpha.
        private func over(_ image: DecodedImage) -> DecodedImage {
            let under = (Double(background.red), Double(background.green), Double(background.blue), Double(background.alpha) / 255)
            var pixels = image.pixels
            pixels.withUnsafeMutableBufferPointer { pixels in
                var offset = 0
                while offset < pixels.count {
                    let alpha = Double(pixels[offset + 3]) / 255
                    if alpha < 1 {
                        let out = alpha + under.3 * (1 - alpha)
                        func mix(_ level: UInt8, _ colour: Double) -> UInt8 {
                            UInt8(min(255, max(0, ((Double(level) * alpha + colour * under.3 * (1 - alpha)) / out).rounded())))
                        }
                        if out > 0 {
                            pixels[offset] = mix(pixels[offset], under.0)
                            pixels[offset + 1] = mix(pixels[offset + 1], under.1)
                            pixels[offset + 2] = mix(pixels[offset + 2], under.2)
                        }
                        pixels[offset + 3] = UInt8((out * 255).rounded())
                    }
                    offset += 4
                }
            }
            return image.replacingPixels(pixels, width: image.width, height: image.height)
        }
    }
}
