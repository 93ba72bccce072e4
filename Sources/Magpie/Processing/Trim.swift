import CMagpieVips

extension ImageProcessors {
    /// Cuts away borders of one colour, as scanners and product shots leave them. The borders
    /// are found on the first frame, and every frame is cut alike.
    public struct Trim: ImageProcessing, Hashable {
        /// How far, in levels, a pixel may be from the border colour and still be border.
        public let threshold: Double
        /// The border colour; `nil` takes the colour of the pixel in ``corner``.
        public let colour: Colour?
        /// Where the border colour is read when ``colour`` is `nil`.
        public let corner: Corner
        /// Keep the left and right borders' cuts equal (the smaller grows to the larger), and the
        /// top and bottom ones.
        public let equalHorizontal: Bool
        public let equalVertical: Bool

        /// The pixel a border colour is read from.
        public enum Corner: String, Sendable, Hashable {
            case topLeft, bottomRight
        }

        public init(
            threshold: Double = 10, colour: Colour? = nil, corner: Corner = .topLeft, equalHorizontal: Bool = false, equalVertical: Bool = false
        ) {
            self.threshold = threshold
            self.colour = colour
            self.corner = corner
            self.equalHorizontal = equalHorizontal
            self.equalVertical = equalVertical
        }

        public var identifier: String {
            "magpie.trim/1?threshold=\(threshold)&colour=\(colour?.description ?? (corner == .topLeft ? "corner" : "corner-bottom-right"))"
                + "&equal=\(equalHorizontal ? 1 : 0)\(equalVertical ? 1 : 0)"
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            // Works a byte a sample.
            let image = image.narrowedToEightBits()
            do {
                try VipsRuntime.start()
            } catch {
                throw .processingFailed(processor: identifier, reason: error.description)
            }
            var colour = colour
            if colour == nil, corner == .bottomRight {
                // As the finder judges transparent pixels: on magenta.
                let pixel = image.pixel(x: image.width - 1, y: image.height - 1)
                func over(_ level: UInt8, _ under: Int) -> UInt8 { UInt8((Int(level) * Int(pixel.alpha) + under * (255 - Int(pixel.alpha))) / 255) }
                colour = Colour(red: over(pixel.red, 255), green: over(pixel.green, 0), blue: over(pixel.blue, 255))
            }
            var options = magpie_trim_options()
            options.threshold = threshold
            options.red = Double(colour?.red ?? 0)
            options.green = Double(colour?.green ?? 0)
            options.blue = Double(colour?.blue ?? 0)
            options.from_corner = colour == nil ? 1 : 0
            options.equal_horizontal = equalHorizontal ? 1 : 0
            options.equal_vertical = equalVertical ? 1 : 0
            var (left, top, width, height): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
            var message = [CChar](repeating: 0, count: 512)
            // The first frame is the first `height` rows of the stack.
            let status = image.pixels.withUnsafeBufferPointer { pixels in
                magpie_find_trim(
                    pixels.baseAddress, Int32(image.width), Int32(image.height), &options, &left, &top, &width, &height, &message,
                    message.count)
            }
            guard status == MAGPIE_STATUS_OK else { throw .processingFailed(processor: identifier, reason: VipsDecoder.text(message)) }
            guard Int(width) != image.width || Int(height) != image.height else { return image }
            return try Crop(.rectangle(x: Int(left), y: Int(top), width: Int(width), height: Int(height))).process(image)
        }
    }
}
