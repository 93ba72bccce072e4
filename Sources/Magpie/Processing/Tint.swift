extension ImageProcessors {
    /// Recolours the image along a ramp of colours by each pixel's luminance (Rec. 709 weights
    /// on the sRGB levels): two stops make a duotone (shadows to highlights), three (black, a
    /// colour, white) a monochrome in shades of that colour. ``intensity`` blends the result
    /// with the original; transparency is kept.
    public struct Tint: ImageProcessing, Hashable {
        /// From the darkest to the lightest; alpha is ignored.
        public let stops: [Colour]
        /// 0 (the original) ... 1 (the ramp alone).
        public let intensity: Double

        public init(stops: [Colour], intensity: Double = 1) {
            self.stops = stops.isEmpty ? [.black, .white] : stops.count == 1 ? [.black, stops[0]] : stops
            self.intensity = min(max(intensity, 0), 1)
        }

        /// Shades of `colour`, from black through it to white (imgproxy's `monochrome`).
        public static func monochrome(_ colour: Colour = Colour(red: 0xB3, green: 0xB3, blue: 0xB3), intensity: Double = 1) -> Self {
            Self(stops: [.black, colour, .white], intensity: intensity)
        }

        /// `shadows` to `highlights` (imgproxy's `duotone`).
        public static func duotone(shadows: Colour = .black, highlights: Colour = .white, intensity: Double = 1) -> Self {
            Self(stops: [shadows, highlights], intensity: intensity)
        }

        public var identifier: String {
            "magpie.tint/1?stops=" + stops.map { "\(Colour(red: $0.red, green: $0.green, blue: $0.blue))" }.joined(separator: ",")
                + "&intensity=\(intensity)"
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            // Works a byte a sample.
            let image = image.narrowedToEightBits()
            guard intensity > 0 else { return image }
            let ramp = self.ramp()
            let kept = 256 - Int((intensity * 256).rounded()), taken = 256 - kept
            var pixels = image.pixels
            pixels.withUnsafeMutableBufferPointer { pixels in
                ramp.withUnsafeBufferPointer { ramp in
                    var offset = 0
                    while offset < pixels.count {
                        let (red, green, blue) = (Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
                        let level = (54 * red + 183 * green + 19 * blue) >> 8
                        pixels[offset] = UInt8((red * kept + Int(ramp[level * 3]) * taken) >> 8)
                        pixels[offset + 1] = UInt8((green * kept + Int(ramp[level * 3 + 1]) * taken) >> 8)
                        pixels[offset + 2] = UInt8((blue * kept + Int(ramp[level * 3 + 2]) * taken) >> 8)
                        offset += 4
                    }
                }
            }
            return image.replacingPixels(pixels, width: image.width, height: image.height)
        }

        /// Red, green and blue for each luminance level, 0...255.
        private func ramp() -> [UInt8] {
            var ramp: [UInt8] = []
            ramp.reserveCapacity(256 * 3)
            let segments = Double(stops.count - 1)
            for level in 0..<256 {
                let position = Double(level) / 255 * segments
                let index = min(Int(position), stops.count - 2)
                let t = position - Double(index)
                let (from, to) = (stops[index], stops[index + 1])
                for (a, b) in [(from.red, to.red), (from.green, to.green), (from.blue, to.blue)] {
                    ramp.append(UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded()))
                }
            }
            return ramp
        }
    }

    /// One frame of an animation as a still (imgproxy's `page`); the last when the animation
    /// has fewer, and a still as it is.
    public struct Frame: ImageProcessing, Hashable {
        /// From 0.
        public let index: Int

        public init(_ index: Int) {
            self.index = max(index, 0)
        }

        public var identifier: String { "magpie.frame/1?index=\(index)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            // Works a byte a sample.
            let image = image.narrowedToEightBits()
            guard image.isAnimated else { return image }
            return image.frame(min(index, image.frameCount - 1))
        }
    }
}
