import Foundation
import Magpie

/// thumbor's filters that change how the result is written and answered, and its watermark.
extension ThumborFilters {
    /// A year: the longest `max_age` a URL may ask.
    static let maximumAge = 31_536_000

    static let output: [(String, Apply)] = [
        ("quality", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(1...1, usage: "quality(0 to 100)")
            let quality = min(100, try arguments.positive(0))
            reading.options.quality = quality == 0 ? nil : quality
        }),
        ("format", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(1...1, usage: "format(FORMAT)")
            let name = arguments.string(0).lowercased()
            // thumbor writes these; any other name leaves the format as it would be without the filter.
            guard ["png", "jpeg", "jpg", "gif", "webp", "avif", "heic", "heif"].contains(name) else {
                reading.options.format = nil
                throw arguments.skip("not a format thumbor writes, so the format is left as it would be")
            }
            guard let format = ImageFormat(name: name), format.isEncoderAvailable else {
                reading.options.format = nil
                throw arguments.skip("Magpie does not write \(name.uppercased()), so the format is left as it would be")
            }
            reading.options.format = .fixed(format)
        }),
        ("max_bytes", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(1...1, usage: "max_bytes(BYTES)")
            let bytes = try arguments.positive(0)
            guard bytes <= Int(Int32.max) else { throw arguments.skip("more bytes than any image Magpie makes") }
            reading.options.maximumBytes = bytes == 0 ? nil : bytes
        }),
        ("max_age", { arguments, reading throws(ThumborFilterFailure) in
            try arguments.expect(1...1, usage: "max_age(SECONDS)")
            let seconds = try arguments.positive(0)
            if seconds > maximumAge { reading.skipped.append("\(arguments.written): answered with a year, the longest Magpie says") }
            reading.options.maxAge = min(seconds, maximumAge)
        }),
        ("strip_exif", { arguments, _ throws(ThumborFilterFailure) in
            // Magpie writes no metadata but an asked-for copyright.
            try arguments.expect(0...0, usage: "strip_exif()")
        }),
        ("strip_icc", { arguments, _ throws(ThumborFilterFailure) in
            // Magpie converts to sRGB and writes no profile.
            try arguments.expect(0...0, usage: "strip_icc()")
        }),
        ("watermark", watermark), ("frame", frame),
    ]

    /// `frame(URL)`: the result padded and framed by the nine-patch at URL, where the filter
    /// stands in the chain. The patch is fetched when the request is answered; until then a
    /// stand-in that names it the same holds its place.
    private static func frame(_ arguments: ThumborArguments, _ reading: inout ThumborReading) throws(ThumborFilterFailure) {
        try arguments.expect(1...1, usage: "frame(URL)")
        let url: URL
        do {
            url = try ThumborPath.source(arguments.string(0))
        } catch {
            throw .refuse(error)
        }
        reading.options.frame = url
        reading.options.filters.append(
            ImageProcessors.NinePatchFrame(patch: .init(identifier: ThumborFilters.frameIdentifier(url), image: ImageProxy.markStandIn), limits: reading.limits))
    }

    /// What a frame's patch is known by, in the stand-in and once fetched alike.
    static func frameIdentifier(_ url: URL) -> String { "frame:" + url.absoluteString }

    /// `watermark(URL,X,Y,ALPHA[,W_RATIO[,H_RATIO]])`.
    private static func watermark(_ arguments: ThumborArguments, _ reading: inout ThumborReading) throws(ThumborFilterFailure) {
        try arguments.expect(4...6, usage: "watermark(URL,X,Y,ALPHA[,W_RATIO,H_RATIO])")
        guard let x = ThumborReading.alignment(arguments.values[1]), let y = ThumborReading.alignment(arguments.values[2]) else {
            throw arguments.skip("X and Y are pixels (negative from the far edge), Np, center or repeat")
        }
        let alpha = try arguments.positive(3)
        guard alpha <= 100 else { throw arguments.skip("the alpha is 0 (opaque) to 100 (invisible)") }
        var mark = WatermarkOptions()
        do {
            mark.mark = .url(try ThumborPath.source(arguments.string(0)))
        } catch {
            throw .refuse(error)
        }
        mark.position = .aligned(x: x, y: y)
        // thumbor's alpha is how transparent the mark is, in percent.
        mark.opacity = 1 - Double(alpha) / 100
        for index in 4..<arguments.values.count where arguments.values[index] != "none" {
            let ratio = try arguments.positive(index)
            guard ratio <= 100 else { throw arguments.skip("W_RATIO and H_RATIO are 0 to 100 percent, or none") }
            if index == 4 { mark.scaleWidth = Double(ratio) / 100 } else { mark.scaleHeight = Double(ratio) / 100 }
        }
        reading.options.watermark = mark.opacity > 0 ? mark : nil
    }
}
