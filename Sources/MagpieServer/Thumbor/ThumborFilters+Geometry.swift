import Foundation
import Magpie

/// thumbor's filters that change what is loaded, the size or the canvas.
extension ThumborFilters {
    static let geometry: [(String, Apply)] = [
        ("no_upscale", { arguments, _ throws(ThumborFilterFailure) in
            // Read with the size (``ThumborReading/layout(of:)``), where it changes the resize.
            try arguments.expect(0...0, usage: "no_upscale()")
        }),
        ("upscale", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(0...0, usage: "upscale()")
            // Only a fit-in leaves an image smaller than its box: it is enlarged to fit.
            if reading.path.fitting == .fitIn || reading.path.fitting == .adaptiveFitIn {
                reading.options.layout.enlarge = true
                // thumbor hands Pillow the enlarged side as int(): truncated.
                reading.options.layout.sideRounding.enlarging = .towardZero
            }
        }),
        ("stretch", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(0...0, usage: "stretch()")
            reading.options.layout.resizing = .force
            reading.options.layout.enlarge = true
        }),
        ("proportion", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(1...1, usage: "proportion(DECIMAL)")
            let proportion = try arguments.decimal(0)
            guard proportion > 0, proportion <= 1 else { throw arguments.skip("thumbor applies a proportion above 0 and at most 1") }
            reading.options.layout.zoomX *= proportion
            reading.options.layout.zoomY *= proportion
            // Pillow is handed the scaled sides as int(): truncated.
            reading.options.layout.sideRounding.shrinking = .towardZero
        }),
        ("rotate", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(1...1, usage: "rotate(DEGREES)")
            let degrees = try arguments.integer(0)
            guard degrees % 90 == 0 else { throw arguments.skip("thumbor turns only by multiples of 90 degrees") }
            // thumbor turns counter-clockwise, after the resize; each rotate adds to the last.
            reading.options.turn = (reading.options.turn + 360 - ((degrees % 360) + 360) % 360) % 360
        }),
        ("focal", focal), ("extract_focal", extractFocal),
        ("fill", fill),
        ("background_color", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(1...1, usage: "background_color(COLOUR)")
            let word = try arguments.word(0)
            if word == "auto" {
                // Flattened onto the average colour of what shows.
                reading.options.filters.append(ImageProcessors.Backdrop(.average))
                return
            }
            guard let colour = ThumborReading.colour(word) else { throw arguments.skip("'\(word)' is not a colour") }
            reading.options.background = colour
        }),
    ]

    /// `focal(LEFTxTOP:RIGHTxBOTTOM)`: the crop centres on the rectangle's centre.
    private static func focal(_ arguments: ThumborArguments, _ reading: inout ThumborReading) throws(ThumborFilterFailure) {
        try arguments.expect(1...1, usage: "focal(LEFTxTOP:RIGHTxBOTTOM)")
        let corners = arguments.string(0).split(separator: ":", maxSplits: 1).map { $0.split(separator: "x").map { Int($0) } }
        guard corners.count == 2, corners.allSatisfy({ $0.count == 2 && $0.allSatisfy { ($0 ?? -1) >= 0 && ($0 ?? 0) <= 1_000_000 } }) else {
            throw arguments.skip("thumbor reads a rectangle LEFTxTOP:RIGHTxBOTTOM in the source's pixels")
        }
        let (left, top, right, bottom) = (corners[0][0]!, corners[0][1]!, corners[1][0]!, corners[1][1]!)
        guard right != left, bottom != top else { throw arguments.skip("the rectangle is empty") }
        reading.options.layout.gravity = .focusPixel(x: Double(left + right) / 2, y: Double(top + bottom) / 2)
    }

    /// `extract_focal()`: the source is itself a thumbor URL with a manual crop (as an image
    /// cropped by another thumbor); its image is loaded instead, and the crop is the focus.
    private static func extractFocal(_ arguments: ThumborArguments, _ reading: inout ThumborReading) throws(ThumborFilterFailure) {
        try arguments.expect(0...0, usage: "extract_focal()")
        var text = reading.source.absoluteString
        // thumbor follows at most ten thumbor URLs nested in one another.
        for _ in 0..<10 {
            guard let path = Self.innerPath(text), let inner = try? ThumborPath(path) else { break }
            if let crop = inner.crop, crop.right != crop.left, crop.bottom != crop.top {
                reading.source = inner.source
                reading.options.layout.gravity = .focusPixel(x: Double(crop.left + crop.right) / 2, y: Double(crop.top + crop.bottom) / 2)
                return
            }
            text = inner.source.absoluteString
        }
        throw arguments.skip("the image is not a thumbor URL with a crop")
    }

    /// The path of a URL on another host: from the first slash after the host.
    private static func innerPath(_ url: String) -> String? {
        var rest = Substring(url)
        for scheme in ["http://", "https://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return String(rest[slash...])
    }

    /// `fill(COLOUR[,FILL_TRANSPARENT])`: a fit-in image on a canvas of the box's size.
    private static func fill(_ arguments: ThumborArguments, _ reading: inout ThumborReading) throws(ThumborFilterFailure) {
        try arguments.expect(1...2, usage: "fill(COLOUR[,FILL_TRANSPARENT])")
        let word = try arguments.word(0)
        if arguments.has(1) { _ = try arguments.boolean(1) }
        if word == "auto" || word == "blur" {
            // A canvas of the box's size (the image's where larger, as a full-fit-in makes it).
            let (width, height) = (reading.path.originalWidth ? 0 : reading.options.layout.width, reading.path.originalHeight ? 0 : reading.options.layout.height)
            // thumbor blurs with a radius of 50.
            reading.options.filters.append(ImageProcessors.Backdrop(word == "auto" ? .average : .blurred(sigma: 50), width: width, height: height))
            return
        }
        if word == "transparent" {
            reading.options.layout.extend = .centre
            return
        }
        guard let colour = ThumborReading.colour(word) else { throw arguments.skip("'\(word)' is not a colour") }
        reading.options.layout.extend = .centre
        reading.options.background = colour
    }
}
