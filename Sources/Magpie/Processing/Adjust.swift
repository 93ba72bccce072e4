import CMagpieVips

extension ImageProcessors {
    /// Brightness, contrast and saturation in one step, on the colour bands alone: saturation
    /// mixes each pixel with its grey (Rec. 709 luma), contrast scales the distance from
    /// mid-grey, brightness adds levels. The defaults change nothing.
    public struct Adjust: ImageProcessing, Hashable {
        /// Levels added to red, green and blue, -255...255.
        public let brightness: Double
        /// Multiplies the distance from mid-grey (128), 0...10: 0 is flat grey.
        public let contrast: Double
        /// Multiplies the distance from each pixel's grey, 0...10: 0 is greyscale.
        public let saturation: Double

        public init(brightness: Double = 0, contrast: Double = 1, saturation: Double = 1) {
            self.brightness = brightness
            self.contrast = contrast
            self.saturation = saturation
        }

        public var identifier: String { "magpie.adjust/1?brightness=\(brightness)&contrast=\(contrast)&saturation=\(saturation)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard brightness != 0 || contrast != 1 || saturation != 1 else { return image }
            return try VipsProcessing.run(on: image, by: self) { magpie_adjust($0, brightness, contrast, saturation, $1, $2, $3) }
        }
    }
}
