extension ImageProcessors {
    /// Frames an image with a nine-patch: an image whose one-pixel border says, in opaque black,
    /// which of its columns (the top edge) and rows (the left edge) stretch and where the content
    /// goes (the bottom and right edges), the format Android made and thumbor's `frame` filter
    /// reads. The image is first padded, on white, so that the content area falls on it; the
    /// patch, without its border, is then stretched to the padded size (fixed rows and columns
    /// keep their size, stretchy ones share the rest) and laid over it. Every frame of an
    /// animation is framed alike. The framed result is held to the limits like a layout's
    /// (refused with ``MagpieError/outputTooLarge(width:height:maximumSide:maximumPixels:)``
    /// before the padding is allocated).
    public struct NinePatchFrame: ImageProcessing {
        /// The nine-patch, border included.
        public let patch: Watermark.Mark
        /// The framed result's limits; `nil`: ``Layout/maximumSide`` and ``Layout/maximumPixels``.
        public let limits: ProcessingLimits?

        /// Creates the processor; the patch's markers are read when it runs.
        public init(patch: Watermark.Mark, limits: ProcessingLimits? = nil) {
            self.patch = patch
            self.limits = limits
        }

        public var identifier: String { "magpie.nine-patch-frame/1?patch=\(patch.identifier)" }

        public func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
            // Works a byte a sample.
            let image = image.narrowedToEightBits()
            guard let markers = NinePatch(patch.image) else {
                throw .processingFailed(processor: identifier, reason: "a nine-patch is at least 3 x 3 pixels, its border included")
            }
            let padding = markers.padding
            let (width, height) = (image.width + padding.left + padding.right, image.height + padding.top + padding.bottom)
            let side = min(limits?.maximumDimension ?? Layout.maximumSide, Layout.maximumSide)
            let pixels = min(limits?.maximumOutputPixels ?? Layout.maximumPixels, Layout.maximumPixels)
            guard width <= side, height <= side, width * height <= pixels else {
                throw .outputTooLarge(width: width, height: height, maximumSide: side, maximumPixels: pixels)
            }
            var padded = image
            if padding != (0, 0, 0, 0) {
                padded = try Embed(width: width, height: height, x: padding.left, y: padding.top, background: Colour(red: 255, green: 255, blue: 255))
                    .process(image)
            }
            let layer = try markers.stretched(patch.image, width: padded.width, height: padded.height)
            return try Watermark(
                mark: Watermark.Mark(identifier: identifier, image: layer), position: .aligned(x: .start(.pixels(0)), y: .start(.pixels(0)))
            ).process(padded)
        }
    }
}

/// The markers of a nine-patch's border: runs of stretchy and fixed columns and rows, and the
/// content's padding.
struct NinePatch {
    /// Runs along the inner width (and height), in order: where each starts in the patch, how
    /// long it is, and whether it stretches.
    struct Run {
        let start: Int
        let length: Int
        let stretches: Bool
    }

    let columns: [Run]
    let rows: [Run]
    let padding: (left: Int, top: Int, right: Int, bottom: Int)

    init?(_ patch: DecodedImage) {
        guard patch.width >= 3, patch.height >= 3 else { return nil }
        func marked(_ x: Int, _ y: Int) -> Bool {
            let pixel = patch.pixel(x: x, y: y)
            return pixel.red == 0 && pixel.green == 0 && pixel.blue == 0 && pixel.alpha == 255
        }
        columns = Self.runs(1..<patch.width - 1) { marked($0, 0) }
        rows = Self.runs(1..<patch.height - 1) { marked(0, $0) }
        // The content area, marked along the bottom and right edges; unmarked, no padding.
        let across = (1..<patch.width - 1).filter { marked($0, patch.height - 1) }
        let down = (1..<patch.height - 1).filter { marked(patch.width - 1, $0) }
        padding = (
            left: across.first.map { $0 - 1 } ?? 0, top: down.first.map { $0 - 1 } ?? 0,
            right: across.last.map { patch.width - 2 - $0 } ?? 0, bottom: down.last.map { patch.height - 2 - $0 } ?? 0
        )
    }

    private static func runs(_ range: Range<Int>, _ stretches: (Int) -> Bool) -> [Run] {
        var runs: [Run] = []
        var start = range.lowerBound
        while start < range.upperBound {
            let kind = stretches(start)
            var end = start + 1
            while end < range.upperBound, stretches(end) == kind { end += 1 }
            runs.append(Run(start: start, length: end - start, stretches: kind))
            start = end
        }
        return runs
    }

    /// Each run's length in a target side: fixed runs keep theirs, stretchy ones share what is
    /// left in proportion (rounded each, as thumbor rounds them).
    private static func sizes(_ runs: [Run], in side: Int) -> [Int] {
        let stretchy = runs.filter(\.stretches).reduce(0) { $0 + $1.length }
        let fixed = runs.reduce(0) { $0 + $1.length } - stretchy
        let shared = max(0, side - fixed)
        return runs.map { run in
            run.stretches ? Int(Double(run.length) / Double(stretchy) * Double(shared) + 0.5) : run.length
        }
    }

    /// The patch without its border, stretched to `width` x `height`: each cell cut from the
    /// patch and resized to its place; a cell that would reach past the layer is left out.
    func stretched(_ patch: DecodedImage, width: Int, height: Int) throws(MagpieError) -> DecodedImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let (widths, heights) = (Self.sizes(columns, in: width), Self.sizes(rows, in: height))
        var top = 0
        for (row, cellHeight) in zip(rows, heights) {
            defer { top += cellHeight }
            var left = 0
            for (column, cellWidth) in zip(columns, widths) {
                defer { left += cellWidth }
                guard cellWidth > 0, cellHeight > 0, left + cellWidth <= width, top + cellHeight <= height else { continue }
                let cell = try Self.cell(
                    patch, x: column.start, y: row.start, width: column.length, height: row.length, to: cellWidth, cellHeight)
                for y in 0..<cellHeight {
                    let from = y * cellWidth * 4, to = ((top + y) * width + left) * 4
                    pixels.replaceSubrange(to..<to + cellWidth * 4, with: cell.pixels[from..<from + cellWidth * 4])
                }
            }
        }
        return DecodedImage(width: width, height: height, pixels: pixels)
    }

    /// The patch's rectangle resized to `width` x `height` (a cell stretched along one axis
    /// keeps the other exactly as drawn: `Resample` enlarges one axis alone).
    private static func cell(
        _ patch: DecodedImage, x: Int, y: Int, width: Int, height: Int, to targetWidth: Int, _ targetHeight: Int
    ) throws(MagpieError) -> DecodedImage {
        let cut = try ImageProcessors.Crop(.rectangle(x: x, y: y, width: width, height: height)).process(patch)
        if width == targetWidth, height == targetHeight { return cut }
        return try ImageProcessors.Resample(width: targetWidth, height: targetHeight).process(cut)
    }
}
