extension ImageProcessors {
    /// Carries out a ``Magpie/Layout``: turns and mirrors the image, plans it for the turned
    /// size (``LayoutPlan``), crops, scales, crops to the box, runs `filters` on the result,
    /// then places it on its canvases (transparent; an opaque format shows its background, see
    /// ``Flatten``). As the first processor of a request it lets the decoder shrink large JPEGs
    /// and WebPs on load.
    public struct Layout: ImageProcessing {
        public let layout: Magpie.Layout
        /// Processors run on the scaled and cropped image, before any canvas is added, so a
        /// blur or sharpen does not reach into the padding.
        public let filters: [any ImageProcessing]

        public init(_ layout: Magpie.Layout, filters: [any ImageProcessing] = []) {
            self.layout = layout
            self.filters = filters
        }

        public var identifier: String {
            "magpie.layout/1?\(layout.name)" + filters.map { "&filter=\($0.identifier)" }.joined()
        }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            // The whole upright image's size, though the decoder may have handed over fewer pixels.
            var full = DecodedImage.Size(width: image.fullSize?.width ?? image.width, height: image.fullSize?.height ?? image.height)
            var image = image
            if let trim = layout.trim {
                // Only when the decode kept every pixel (a trim asks for no shrinking on load).
                image = try trim.process(image)
                full = DecodedImage.Size(width: image.width, height: image.height)
            }
            if let rotate = Rotate(degrees: layout.rotation), rotate.degrees != 0 {
                image = try rotate.process(image)
                if rotate.degrees != 180 { full = DecodedImage.Size(width: full.height, height: full.width) }
            }
            image = try Flip(horizontal: layout.flipHorizontal, vertical: layout.flipVertical).process(image)
            let plan = LayoutPlan(layout, source: full)
            var size = full
            if let crop = plan.crop {
                image = try cut(image, crop, reducedFrom: size)
                size = crop.size
            }
            let target = plan.scaled ?? size
            if target.width != image.width || target.height != image.height {
                image = try Resize(width: target.width, height: target.height, fit: .exact, upscale: true).process(image)
            }
            if let resultCrop = plan.resultCrop {
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

        /// Cuts `cut`, planned for an image of `planned` pixels, from `image`, which may hold it
        /// at a reduced scale.
        private func cut(_ image: DecodedImage, _ cut: LayoutPlan.Cut, reducedFrom planned: DecodedImage.Size) throws(MagpieError) -> DecodedImage {
            let across = Double(image.width) / Double(planned.width), down = Double(image.height) / Double(planned.height)
            func fitted(_ value: Int, _ factor: Double, within limit: Int) -> Int { max(0, min(limit, Int((Double(value) * factor).rounded()))) }
            switch cut {
            case .rectangle(let x, let y, let width, let height):
                let left = fitted(x, across, within: image.width - 1), top = fitted(y, down, within: image.height - 1)
                let kept = (max(1, fitted(width, across, within: image.width - left)), max(1, fitted(height, down, within: image.height - top)))
                return try Crop(.rectangle(x: left, y: top, width: kept.0, height: kept.1)).process(image)
            case .smart(let gravity, let width, let height):
                let kept = (max(1, fitted(width, across, within: image.width)), max(1, fitted(height, down, within: image.height)))
                return try Crop(.gravity(gravity, width: kept.0, height: kept.1)).process(image)
            }
        }

        /// What the decoder may shrink on load for: a box no larger than the scaled result, so
        /// the resize keeps at least twice its output to work from. None when a crop, trim or
        /// minimum size decides the scale only once the size is known.
        var decodeResize: Resize? {
            guard layout.crop == nil, layout.trim == nil, layout.minWidth == 0, layout.minHeight == 0, layout.width > 0 || layout.height > 0 else { return nil }
            var width = Int((Double(layout.width) * layout.dpr * layout.zoomX).rounded(.up))
            var height = Int((Double(layout.height) * layout.dpr * layout.zoomY).rounded(.up))
            if layout.rotation % 180 != 0 { swap(&width, &height) }
            let unbounded = 1 << 20
            if width == 0 || height == 0 {
                // One side alone scales both, except when forced, where the other keeps its size.
                guard layout.resizing != .force else { return nil }
                return Resize(width: width == 0 ? unbounded : width, height: height == 0 ? unbounded : height, fit: .fit)
            }
            switch layout.resizing {
            case .fit: return Resize(width: width, height: height, fit: .fit)
            case .force: return Resize(width: width, height: height, fit: .exact)
            case .fill, .fillDown, .auto: return Resize(width: width, height: height, fit: .cover)
            }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Layout {
    /// Lays the image out as `layout` says; see ``ImageProcessors/Layout``.
    public static func layout(_ layout: Layout, filters: [any ImageProcessing] = []) -> Self {
        ImageProcessors.Layout(layout, filters: filters)
    }
}
