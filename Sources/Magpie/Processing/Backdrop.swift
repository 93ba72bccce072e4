extension ImageProcessors {
    /// Lays an image, centred, on a canvas made from itself: the image stretched to the canvas
    /// and blurred (thumbor's `fill(blur)`), or flat in the average colour of its visible pixels
    /// (thumbor's `fill(auto)` and `background_color(auto)`). The canvas is at least the image's
    /// size on each side.
    public struct Backdrop: ImageProcessing, Hashable {
        /// What the canvas shows.
        public enum Kind: Sendable, Hashable {
            /// The image stretched over the canvas, blurred with this standard deviation in
            /// the canvas's pixels.
            case blurred(sigma: Double)
            /// The mean colour of the pixels that are not wholly transparent.
            case average
        }

        /// What the canvas shows.
        public let kind: Kind
        /// The canvas's width; 0 (or less than the image's) is the image's.
        public let width: Int
        /// The canvas's height; 0 (or less than the image's) is the image's.
        public let height: Int

        /// Creates a backdrop of at least `width` by `height` pixels.
        public init(_ kind: Kind, width: Int = 0, height: Int = 0) {
            self.kind = kind
            self.width = max(0, width)
            self.height = max(0, height)
        }

        public var identifier: String {
            let shown =
                switch kind {
                case .blurred(let sigma): "blur-\(sigma)"
                case .average: "average"
                }
            return "magpie.backdrop/1?kind=\(shown)&width=\(width)&height=\(height)"
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            // Works a byte a sample.
            let image = image.narrowedToEightBits()
            return try image.mapFrames { frame throws(MagpieError) in try lay(frame) }
        }

        private func lay(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            let canvas = (width: max(width, image.width), height: max(height, image.height))
            let limit = (side: Layout.maximumSide, pixels: Layout.maximumPixels)
            guard canvas.width <= limit.side, canvas.height <= limit.side, canvas.width * canvas.height <= limit.pixels else {
                throw .outputTooLarge(width: canvas.width, height: canvas.height, maximumSide: limit.side, maximumPixels: limit.pixels)
            }
            let under: DecodedImage
            switch kind {
            case .average:
                let colour = Self.averageColour(of: image)
                let pixel = [colour.red, colour.green, colour.blue, 255]
                under = DecodedImage(
                    width: canvas.width, height: canvas.height,
                    pixels: Array([[UInt8]](repeating: pixel, count: canvas.width * canvas.height).joined()))
            case .blurred(let sigma):
                // Blurred small then stretched: a wide blur costs as much as the pixels it spans,
                // and the enlargement adds nothing a blur that wide would keep.
                let shrink = max(1, min(8, Int(sigma / 4)))
                let small = try Resample(width: max(1, canvas.width / shrink), height: max(1, canvas.height / shrink))
                    .process(Flatten(background: .black).process(image))
                let blurred = try GaussianBlur(sigma: max(0.5, sigma / Double(shrink))).process(small)
                under = try Resample(width: canvas.width, height: canvas.height).process(blurred)
            }
            let pixels = Self.over(image, on: under, left: (canvas.width - image.width) / 2, top: (canvas.height - image.height) / 2)
            // The image's own description (its source's format and size) goes on.
            return image.replacingPixels(pixels, width: canvas.width, height: canvas.height)
        }

        /// The mean of the red, green and blue of the pixels that are not wholly transparent;
        /// black when every pixel is.
        static func averageColour(of image: DecodedImage) -> Colour {
            var sums = (0, 0, 0), count = 0
            image.pixels.withUnsafeBufferPointer { pixels in
                var offset = 0
                while offset < pixels.count {
                    if pixels[offset + 3] > 0 {
                        sums.0 += Int(pixels[offset])
                        sums.1 += Int(pixels[offset + 1])
                        sums.2 += Int(pixels[offset + 2])
                        count += 1
                    }
                    offset += 4
                }
            }
            guard count > 0 else { return .black }
            return Colour(red: UInt8(sums.0 / count), green: UInt8(sums.1 / count), blue: UInt8(sums.2 / count))
        }

        /// The pixels of `image` over `canvas` (opaque) at `left`, `top`, in straight alpha.
        static func over(_ image: DecodedImage, on canvas: DecodedImage, left: Int, top: Int) -> [UInt8] {
            var pixels = canvas.pixels
            pixels.withUnsafeMutableBufferPointer { out in
                image.pixels.withUnsafeBufferPointer { source in
                    for y in 0..<image.height {
                        var from = y * image.width * 4
                        var to = ((top + y) * canvas.width + left) * 4
                        for _ in 0..<image.width {
                            let alpha = Int(source[from + 3])
                            for channel in 0..<3 {
                                out[to + channel] = UInt8((Int(source[from + channel]) * alpha + Int(out[to + channel]) * (255 - alpha) + 127) / 255)
                            }
                            out[to + 3] = 255
                            from += 4
                            to += 4
                        }
                    }
                }
            }
            return pixels
        }
    }
}
