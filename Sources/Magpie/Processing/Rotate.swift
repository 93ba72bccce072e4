import CMagpieVips

extension ImageProcessors {
    /// Turns an image clockwise by a quarter, a half or three quarters.
    public struct Rotate: ImageProcessing, Hashable {
        /// 90, 180 or 270.
        public let degrees: Int

        /// Creates the processor; `degrees` is brought into 0..<360 and must be a multiple of 90.
        public init?(degrees: Int) {
            let turned = (degrees % 360 + 360) % 360
            guard turned % 90 == 0 else { return nil }
            self.degrees = turned
        }

        public var identifier: String { "magpie.rotate/1?degrees=\(degrees)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard degrees != 0 else { return image }
            return try VipsProcessing.run(on: image, by: self) { magpie_rotate($0, Int32(degrees), $1, $2, $3) }
        }

        public var keepsHighDepth: Bool { true }
    }

    /// Mirrors an image left to right, top to bottom, or both.
    public struct Flip: ImageProcessing, Hashable {
        public let horizontal: Bool
        public let vertical: Bool

        public init(horizontal: Bool, vertical: Bool) {
            self.horizontal = horizontal
            self.vertical = vertical
        }

        public var identifier: String { "magpie.flip/1?horizontal=\(horizontal ? 1 : 0)&vertical=\(vertical ? 1 : 0)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard horizontal || vertical else { return image }
            return try VipsProcessing.run(on: image, by: self) { magpie_flip($0, horizontal ? 1 : 0, vertical ? 1 : 0, $1, $2, $3) }
        }

        public var keepsHighDepth: Bool { true }
    }
}

extension ImageProcessors {
    /// Turns a decoded image back to the way its file stores it, undoing the EXIF orientation
    /// the decoder applied (``DecodedImage/sourceOrientation``): imgproxy's `auto_rotate:0`.
    /// Run it first; an image without an orientation is left as it is.
    public struct StoredOrientation: ImageProcessing, Hashable {
        public init() {}

        public var identifier: String { "magpie.stored-orientation/1" }

        public var keepsHighDepth: Bool { true }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            // Each orientation's inverse: mirrorings and the transposes are their own inverses,
            // a quarter turn is undone by three more.
            let (mirror, degrees): (Bool, Int) =
                switch image.sourceOrientation {
                case 2: (true, 0)
                case 3: (false, 180)
                case 4: (false, 0)
                case 5: (true, 270)
                case 6: (false, 270)
                case 7: (true, 90)
                case 8: (false, 90)
                default: (false, 0)
                }
            var result = image
            if image.sourceOrientation == 4 { result = try Flip(horizontal: false, vertical: true).process(result) }
            if mirror { result = try Flip(horizontal: true, vertical: false).process(result) }
            if let turn = Rotate(degrees: degrees) { result = try turn.process(result) }
            return result
        }
    }
}
