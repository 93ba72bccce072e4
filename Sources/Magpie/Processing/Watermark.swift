import CMagpieVips

extension ImageProcessors {
    /// Lays a mark (a logo, or text) over the image: once, against a side or corner with
    /// offsets, or repeated across it, at an opacity and optionally scaled to the image. The
    /// same on every frame of an animation. The placement, offsets and scale follow imgproxy's
    /// `watermark` option.
    public struct Watermark: ImageProcessing {
        /// The image laid over, and what it is, for cache keys.
        public struct Mark: Sendable {
            /// Stands for the mark's pixels in identifiers: its source (a URL, a file's digest),
            /// never something that changes while the pixels do not.
            public let identifier: String
            /// The first frame is used.
            public let image: DecodedImage

            public init(identifier: String, image: DecodedImage) {
                self.identifier = identifier
                self.image = image.frame(0)
            }
        }

        /// Where the mark goes.
        public enum Position: Sendable, Hashable {
            /// Once, as ``Placement`` places an area (compass point with offsets, or a focus
            /// point); it may reach past the edges, which cut it. imgproxy's positions.
            case placed(Placement)
            /// Repeated across the image from its centre, `spacingX` and `spacingY` apart:
            /// pixels (times ``Watermark/offsetScale``) when at least 1, otherwise fractions of
            /// the image's side. imgproxy's `re`.
            case tiled(spacingX: Double = 0, spacingY: Double = 0)
            /// Along each axis on its own: from the start or the end, centred, or repeated edge
            /// to edge. thumbor's positions.
            case aligned(x: Alignment, y: Alignment)
        }

        /// Where the mark goes along one axis (``Position/aligned(x:y:)``).
        public enum Alignment: Sendable, Hashable {
            /// This far from the left (or top) edge.
            case start(Offset)
            /// This far from the right (or bottom) edge.
            case end(Offset)
            /// Centred, rounded towards the start.
            case centre
            /// As many marks as fit, spread from edge to edge with equal gaps (at most 6 a side
            /// when both axes repeat and more than 100 would fit; at most 1,000 a side).
            case repeated
        }

        /// A distance along an axis.
        public enum Offset: Sendable, Hashable {
            case pixels(Int)
            /// Percent of the image's side.
            case percent(Double)

            func pixels(of side: Int) -> Int {
                switch self {
                case .pixels(let pixels): pixels
                // thumbor rounds halves up.
                case .percent(let percent): Int((Double(side) * percent / 100 + 1e-5).rounded(.toNearestOrEven))
                }
            }
        }

        public let mark: Mark
        /// 0 (invisible) ... 1 (as the mark is).
        public let opacity: Double
        public let position: Position
        /// Above 0: the mark is fitted (enlarged if need be) in a box of this fraction of the
        /// image's width, and of ``scaleHeight`` of its height; a side at 0 does not limit.
        /// Both 0 keep the mark's size.
        public let scaleWidth: Double
        public let scaleHeight: Double
        /// Multiplies offsets and spacings given in pixels: the output's pixel ratio.
        public let offsetScale: Double

        /// A mark fitted in `scale` of the image's width and height when above 0.
        public init(mark: Mark, opacity: Double = 1, position: Position = .placed(.centre), scale: Double = 0, offsetScale: Double = 1) {
            self.init(mark: mark, opacity: opacity, position: position, scaleWidth: scale, scaleHeight: scale, offsetScale: offsetScale)
        }

        public init(mark: Mark, opacity: Double, position: Position, scaleWidth: Double, scaleHeight: Double, offsetScale: Double = 1) {
            self.mark = mark
            self.opacity = min(max(opacity, 0), 1)
            self.position = position
            self.scaleWidth = max(scaleWidth, 0)
            self.scaleHeight = max(scaleHeight, 0)
            self.offsetScale = offsetScale
        }

        public var identifier: String {
            let placed: String
            switch position {
            case .placed(let placement): placed = placement.name
            case .tiled(let x, let y): placed = "tiled:\(x):\(y)"
            case .aligned(let x, let y): placed = "aligned:\(x):\(y)"
            }
            return "magpie.watermark/1?mark=\(mark.identifier)&opacity=\(opacity)&position=\(placed)"
                + "&scale=\(scaleWidth)x\(scaleHeight)&offset-scale=\(offsetScale)"
        }

        /// A still with 16 bits a sample keeps them, the mark widened to them.
        public var keepsHighDepth: Bool { true }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            guard opacity > 0 else { return image }
            let size = DecodedImage.Size(width: image.width, height: image.height)
            var laid = mark.image
            if let fitted = fittedSize(in: size), fitted.width != laid.width || fitted.height != laid.height {
                laid = try Resample(width: fitted.width, height: fitted.height).process(laid)
            }
            var options = magpie_watermark_options()
            options.opacity = opacity
            var lefts: [Int32] = [], tops: [Int32] = []
            switch position {
            case .placed(let placement):
                let origin = placement.origin(
                    outer: size, inner: DecodedImage.Size(width: laid.width, height: laid.height), scale: offsetScale, allowsOverflow: true)
                (lefts, tops) = ([Int32(clamping: origin.x)], [Int32(clamping: origin.y)])
            case .tiled(let spacingX, let spacingY):
                // The spacing is padding split around each tile, so tiles stay centred.
                let across = spacing(spacingX, side: size.width, mark: laid.width), down = spacing(spacingY, side: size.height, mark: laid.height)
                if across > 0 || down > 0 {
                    laid = try Embed(width: laid.width + across, height: laid.height + down, x: across / 2, y: down / 2).process(laid)
                }
                options.tile = 1
            case .aligned(let x, let y):
                let capped = x == .repeated && y == .repeated && (size.width / laid.width) * (size.height / laid.height) > 100
                lefts = Self.starts(x, side: size.width, mark: laid.width, capped: capped).map { Int32(clamping: $0) }
                tops = Self.starts(y, side: size.height, mark: laid.height, capped: capped).map { Int32(clamping: $0) }
            }
            return try lefts.withUnsafeBufferPointer { lefts throws(MagpieError) in
                try tops.withUnsafeBufferPointer { tops throws(MagpieError) in
                    options.lefts = lefts.baseAddress
                    options.column_count = Int32(lefts.count)
                    options.tops = tops.baseAddress
                    options.row_count = Int32(tops.count)
                    return try composite(laid, over: image, options)
                }
            }
        }

        /// The mark's size fitted in the scale's box, or `nil` to keep it.
        private func fittedSize(in size: DecodedImage.Size) -> DecodedImage.Size? {
            guard scaleWidth > 0 || scaleHeight > 0 else { return nil }
            let markWidth = Double(mark.image.width), markHeight = Double(mark.image.height)
            var factors: [Double] = []
            if scaleWidth > 0 { factors.append(Double(max(Rounding.scaleToEven(size.width, scaleWidth), 1)) / markWidth) }
            if scaleHeight > 0 { factors.append(Double(max(Rounding.scaleToEven(size.height, scaleHeight), 1)) / markHeight) }
            let factor = factors.min() ?? 1
            let side = Double(ImageProcessors.Layout.maximumSide)
            return DecodedImage.Size(
                width: Int(min(max((markWidth * factor).rounded(), 1), side)), height: Int(min(max((markHeight * factor).rounded(), 1), side)))
        }

        /// Where marks start along one axis, as thumbor places them.
        static func starts(_ alignment: Alignment, side: Int, mark: Int, capped: Bool) -> [Int] {
            switch alignment {
            case .start(let offset): return [offset.pixels(of: side)]
            case .end(let offset): return [side - mark - offset.pixels(of: side)]
            case .centre: return [(side - mark) / 2]
            case .repeated:
                var (count, gap) = (side / mark, 0)
                if side < 2 * mark {
                    (count, gap) = ((side + mark - 1) / mark, 10)
                } else {
                    // Thumbor's 6 when both axes repeat; 1,000 a side bounds one composite's work
                    // (a 1 px mark on a wide image) where thumbor has no bound.
                    count = min(capped ? 6 : 1_000, count)
                    gap = (side - count * mark) / (max(count, 2) - 1)
                }
                return (0..<count).map { $0 * (mark + gap) }
            }
        }

        /// The gap between tiles, bounded by the image it tiles: from `side − mark` on, tiles
        /// are a side or more apart and only the centre one shows, so a larger gap changes
        /// nothing but the size of the tile's canvas, which it would make as large as it asks.
        private func spacing(_ value: Double, side: Int, mark: Int) -> Int {
            let pixels = abs(value) >= 1 ? Int((min(value, Double(Int32.max)) * offsetScale).rounded(.toNearestOrEven)) : Rounding.scaleToEven(side, value)
            return min(max(pixels, 0), max(side - mark, 0))
        }

        private func composite(_ laid: DecodedImage, over image: DecodedImage, _ options: magpie_watermark_options) throws(MagpieError) -> DecodedImage {
            var options = options
            options.sample_bytes = Int32(image.sampleDepth.rawValue)
            let laid = laid.narrowedToEightBits()
            // libvips reads both bitmaps while rendering, so the render happens in their scopes.
            return try image.pixels.withUnsafeBufferPointer { pixels throws(MagpieError) in
                try laid.pixels.withUnsafeBufferPointer { markPixels throws(MagpieError) in
                    try VipsProcessing.render(replacing: image, identifier: identifier) { result, message in
                        magpie_watermark(
                            pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.frameCount), markPixels.baseAddress,
                            Int32(laid.width), Int32(laid.height), &options, &result, &message, message.count)
                    }
                }
            }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Watermark {
    /// Lays `mark` over the image; see ``ImageProcessors/Watermark``.
    public static func watermark(
        _ mark: ImageProcessors.Watermark.Mark, opacity: Double = 1, position: ImageProcessors.Watermark.Position = .placed(.centre),
        scale: Double = 0
    ) -> Self {
        ImageProcessors.Watermark(mark: mark, opacity: opacity, position: position, scale: scale)
    }
}
