import CMagpieVips

extension ImageProcessors {
    /// Carries out a ``Magpie/Layout``: turns and mirrors the image, plans it for the turned
    /// size (``LayoutPlan``), crops, scales, crops to the box, runs `filters` on the result,
    /// then places it on its canvases (transparent; an opaque format shows its background, see
    /// ``Flatten``). As the first processor of a request that only scales the whole image down,
    /// it lets the decoder decode straight to the scaled size (``DecodeTarget/layout(_:)``).
    public struct Layout: ImageProcessing {
        public let layout: Magpie.Layout
        /// Processors run on the scaled and cropped image, before any canvas is added, so a
        /// blur or sharpen does not reach into the padding.
        public let filters: [any ImageProcessing]

        /// The largest output a layout makes unless told less.
        public static let maximumPixels = 100_000_000
        public static let maximumSide = 65_535

        /// The largest image this layout makes at any step (scaled, cut, or on its final canvas
        /// with extension and padding), refused with ``MagpieError/outputTooLarge(width:height:maximumSide:maximumPixels:)``
        /// before any of it is allocated. Not part of the ``identifier``: it decides whether a
        /// result is made, never what it looks like.
        public let outputLimit: (side: Int, pixels: Int)

        /// `limits` bound the output (``ProcessingLimits/maximumDimension`` and
        /// ``ProcessingLimits/maximumOutputPixels``); without them, 65,535 a side and 100 MP.
        public init(_ layout: Magpie.Layout, filters: [any ImageProcessing] = [], limits: ProcessingLimits? = nil) {
            self.layout = layout
            self.filters = filters
            outputLimit = (
                min(limits?.maximumDimension ?? Self.maximumSide, Self.maximumSide), min(limits?.maximumOutputPixels ?? Self.maximumPixels, Self.maximumPixels)
            )
        }

        public var identifier: String {
            "magpie.layout/1?\(layout.name)" + filters.map { "&filter=\($0.identifier)" }.joined()
        }

        /// The geometry keeps 16 bits a sample; a trim or a filter narrows the image to 8.
        public var keepsHighDepth: Bool { true }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            try process(image, planned: nil)
        }

        /// ``process(_:)``, with the plan the decode was resolved by (``Layout/decodePlan(for:)``)
        /// used instead of planning again when it is this layout's for the image's size.
        func process(_ image: DecodedImage, planned: LayoutPlan?) throws(MagpieError) -> DecodedImage {
            // The whole upright image's size, though the decoder may have handed over fewer pixels.
            var full = image.fullSize ?? DecodedImage.Size(width: image.width, height: image.height)
            var image = image
            if let trim = layout.trim {
                // Only when the decode kept every pixel (a trim asks for no shrinking on load).
                image = try trim.process(image)
                full = DecodedImage.Size(width: image.width, height: image.height)
            }
            if layout.turns, let rotate = Rotate(degrees: layout.rotation) {
                image = try rotate.process(image)
                if rotate.degrees != 180 { full = DecodedImage.Size(width: full.height, height: full.width) }
            }
            if layout.flipHorizontal || layout.flipVertical {
                image = try Flip(horizontal: layout.flipHorizontal, vertical: layout.flipVertical).process(image)
            }
            let plan = plan(for: full, planned: planned)
            try checkLimits(of: plan)
            // The size planned from: the whole image's, or less where the layout limits sources.
            var size = plan.source
            if let crop = plan.crop {
                image = try cut(image, crop, reducedFrom: size)
                size = crop.size
            }
            let target = plan.scaled ?? size
            var resultCrop = plan.resultCrop
            if target.width != image.width || target.height != image.height {
                var resample = Resample(width: target.width, height: target.height)
                // A rectangle kept of the scaled image is cut in the same pipeline: only its
                // pixels are resampled.
                if case .rectangle(let x, let y, let width, let height)? = resultCrop {
                    resample.window = Resample.Window(x: x, y: y, width: width, height: height)
                    resultCrop = nil
                }
                image = try resample.process(image)
            }
            // The bitmap is the layout's now, even where the decoder already made it this size: a
            // processor after it must not size its output from the whole image's size.
            if image.fullSize != nil { image = image.replacingPixels(image.pixels, width: image.width, height: image.height, sampleDepth: image.sampleDepth) }
            if let resultCrop {
                image = try cut(image, resultCrop, reducedFrom: target)
            }
            for filter in filters {
                image = try filter.process(image)
            }
            for canvas in plan.canvases {
                image = try Embed(width: canvas.width, height: canvas.height, x: canvas.x, y: canvas.y).process(image)
            }
            return image
        }

        /// This layout's plan for an image of `size`: `planned` when it is one (made for the
        /// same size, with no source limit that could have changed what it was made from).
        private func plan(for size: DecodedImage.Size, planned: LayoutPlan?) -> LayoutPlan {
            if let planned, layout.sourceLimit == nil, planned.source == size { return planned }
            return LayoutPlan(layout, source: size)
        }

        // Enlarged fills of extreme aspect ratios, minimum sizes, extension and padding can ask
        // for far more than the source holds; refused before any of it is allocated. What is
        // kept (the cut, each canvas, the result) is held to the output limit; the scaled image a
        // fill cuts its box from may exceed it by its aspect ratio, within the absolute bound.
        private func checkLimits(of plan: LayoutPlan) throws(MagpieError) {
            let kept = [plan.resultCrop?.size, plan.size].compactMap { $0 } + plan.canvases.map { DecodedImage.Size(width: $0.width, height: $0.height) }
            let absolute = (side: Self.maximumSide, pixels: Self.maximumPixels)
            let limited = kept.map { ($0, outputLimit) } + [plan.scaled].compactMap { $0 }.map { ($0, absolute) }
            for (made, limit) in limited where made.width > limit.side || made.height > limit.side || made.width * made.height > limit.pixels {
                throw .outputTooLarge(width: made.width, height: made.height, maximumSide: limit.side, maximumPixels: limit.pixels)
            }
        }

        /// Cuts `cut`, planned for an image of `planned` pixels, from `image`, which may hold it
        /// at a reduced scale.
        private func cut(_ image: DecodedImage, _ cut: LayoutPlan.Cut, reducedFrom planned: DecodedImage.Size) throws(MagpieError) -> DecodedImage {
            try Crop(Self.area(of: cut, in: DecodedImage.Size(width: image.width, height: image.height), reducedFrom: planned)).process(image)
        }

        /// Where `cut`, planned for an image of `planned` pixels, lies in an image of `size`,
        /// which may hold it at a reduced scale.
        private static func area(of cut: LayoutPlan.Cut, in size: DecodedImage.Size, reducedFrom planned: DecodedImage.Size) -> Crop.Area {
            let across = Double(size.width) / Double(planned.width), down = Double(size.height) / Double(planned.height)
            func fitted(_ value: Int, _ factor: Double, within limit: Int) -> Int { max(0, min(limit, Int((Double(value) * factor).rounded()))) }
            switch cut {
            case .rectangle(let x, let y, let width, let height):
                let left = fitted(x, across, within: size.width - 1), top = fitted(y, down, within: size.height - 1)
                let kept = (max(1, fitted(width, across, within: size.width - left)), max(1, fitted(height, down, within: size.height - top)))
                return .rectangle(x: left, y: top, width: kept.0, height: kept.1)
            case .smart(let gravity, let width, let height):
                let kept = (max(1, fitted(width, across, within: size.width)), max(1, fitted(height, down, within: size.height)))
                return .gravity(gravity, width: kept.0, height: kept.1)
            }
        }

        /// What is left of this layout once an image was decoded to `target`, the layout's own
        /// target resolved against the image's header (``DecodeTarget/scaled(to:whole:)``) by
        /// `planned` (planned again if it is not this image's plan): nothing, or a crop of that
        /// decoded image. `nil` when the decode did not go straight to the layout's size, when
        /// more is left (a trim, a turn or mirror, filters, canvases), or when the output limits
        /// refuse the layout, which ``process(_:)`` then reports.
        func restAfterDecode(to target: DecodeTarget, planned: LayoutPlan?) -> RestAfterDecode? {
            guard onlyScalesAndCuts, case .scaled(let box, let whole) = target else { return nil }
            let plan = plan(for: whole, planned: planned)
            guard plan.canvases.isEmpty, plan.crop == nil, let scaled = plan.scaled, scaled == box, (try? checkLimits(of: plan)) != nil
            else { return nil }
            guard let resultCrop = plan.resultCrop else { return .nothing }
            return .crop(Self.area(of: resultCrop, in: scaled, reducedFrom: scaled))
        }

        /// Whether this layout does no more than scale and cut (no trim, turn, mirror or filter),
        /// which a decode straight to its size may leave nothing of, or a crop, whatever the image.
        var onlyScalesAndCuts: Bool {
            layout.trim == nil && !layout.turns && !layout.flipHorizontal && !layout.flipVertical && filters.isEmpty
        }

        /// See ``restAfterDecode(to:planned:)``.
        enum RestAfterDecode: Equatable {
            case nothing
            case crop(Crop.Area)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Layout {
    /// Lays the image out as `layout` says; see ``ImageProcessors/Layout``.
    public static func layout(_ layout: Layout, filters: [any ImageProcessing] = []) -> Self {
        ImageProcessors.Layout(layout, filters: filters)
    }
}

extension Layout {
    /// Whether the layout turns the image, as ``Rotate`` reads its angle (a whole turn, or an
    /// angle not a multiple of 90 degrees, turns nothing); no `Rotate` is made for none.
    var turns: Bool { rotation != 0 && (ImageProcessors.Rotate(degrees: rotation)?.degrees ?? 0) != 0 }

    /// What a decode may go straight to for an image with `header`: the size this layout
    /// scales the whole image to, upright, when it only scales it down (no trim, no crop before
    /// scaling, no enlarging), with the image's upright size and the plan it was read from
    /// (for the image turned as the layout turns it), which the layout then carries out without
    /// planning again. `nil` otherwise.
    func decodePlan(for header: magpie_header) -> (size: DecodedImage.Size, upright: DecodedImage.Size, plan: LayoutPlan)? {
        guard trim == nil, crop == nil else { return nil }
        let upright = Self.uprightSize(of: header)
        // As the layout turns it: an angle that is no multiple of 90 degrees turns nothing.
        let quarterTurn = turns && rotation % 180 != 0
        let turned = quarterTurn ? DecodedImage.Size(width: upright.height, height: upright.width) : upright
        let plan = LayoutPlan(self, source: turned)
        guard plan.crop == nil, let scaled = plan.scaled, scaled.width <= turned.width, scaled.height <= turned.height else { return nil }
        return (quarterTurn ? DecodedImage.Size(width: scaled.height, height: scaled.width) : scaled, upright, plan)
    }

    /// The image's size once upright (its EXIF orientation applied).
    static func uprightSize(of header: magpie_header) -> DecodedImage.Size {
        var (upright, width, height) = (header, Int32(0), Int32(0))
        magpie_upright_size(&upright, &width, &height)
        return DecodedImage.Size(width: Int(width), height: Int(height))
    }
}
