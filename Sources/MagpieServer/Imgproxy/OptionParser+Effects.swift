import Foundation
import Magpie

/// imgproxy's options that change how the image looks beyond its geometry: the background, the
/// colour adjustments that are parts of one processor, and watermarks with their marks.
extension OptionParser {
    static let effectReaders: [(names: [String], read: Reader)] = [
        (["background", "bg"], { option, reading, _ throws(ProxyURLError) in reading.options.background = try colour(option) }),
        (["background_alpha", "bga"], { option, reading, _ throws(ProxyURLError) in
            try option.count(1...1, usage: "background_alpha takes an opacity from 0 to 1")
            reading.options.backgroundAlpha = try option.number(0, in: 0...1, what: "background_alpha")
        }),
        (["brightness", "br"], { option, reading, parser throws(ProxyURLError) in try adjust(option, part: 0, &reading, parser) }),
        (["contrast", "co"], { option, reading, parser throws(ProxyURLError) in try adjust(option, part: 1, &reading, parser) }),
        (["saturation", "sa"], { option, reading, parser throws(ProxyURLError) in try adjust(option, part: 2, &reading, parser) }),
        (["watermark", "wm"], watermark), (["watermark_url", "wmu"], watermarkURL), (["watermark_text", "wmt"], watermarkText),
    ]

    /// imgproxy's parts of `adjust`, each into its place.
    private static func adjust(_ option: OptionValues, part: Int, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...1, usage: "\(option.name) takes one number")
        var parts = reading.shared["adjust"]?.values ?? ["", "", ""]
        parts += Array(repeating: "", count: max(0, 3 - parts.count))
        parts[part] = option.values[0]
        parser.readShared(ProcessingOption.named("adjust")!, values: parts, segment: option, into: &reading)
    }

    private static func watermark(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...5, usage: "watermark is wm:OPACITY:POSITION:X_OFFSET:Y_OFFSET:SCALE")
        var watermark = WatermarkOptions()
        watermark.opacity = try option.number(0, in: 0...1, what: "a watermark's opacity")
        let offsets = try (1...2).map { index throws(ProxyURLError) in
            option.has(index + 1) ? try option.number(index + 1, in: -100_000...100_000, what: "a watermark's offset") : 0
        }
        if option.has(1), option.values[1].lowercased() == "re" {
            watermark.position = .tiled(spacingX: max(offsets[0], 0), spacingY: max(offsets[1], 0))
        } else if option.has(1) {
            guard let anchor = OptionValues.anchors[option.values[1].lowercased()] else {
                throw option.failure("a watermark's position is one of ce, no, so, ea, we, noea, nowe, soea, sowe, re")
            }
            watermark.position = .placed(.anchored(anchor, x: offsets[0], y: offsets[1]))
        } else {
            watermark.position = .placed(.anchored(.centre, x: offsets[0], y: offsets[1]))
        }
        if option.has(4) {
            let scale = try option.number(4, in: 0...1, what: "a watermark's scale")
            (watermark.scaleWidth, watermark.scaleHeight) = (scale, scale)
        }
        reading.watermark = watermark
    }

    private static func watermarkURL(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...1, usage: "watermark_url is wmu:BASE64_URL")
        guard option.has(0) else {
            reading.mark = nil
            return
        }
        guard let bytes = Base64URL.decode(option.values[0]), let text = String(bytes: bytes, encoding: .utf8),
            let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "")
        else {
            throw option.failure("the watermark's URL is URL-safe base64 of an http or https URL")
        }
        reading.mark = .url(url)
    }

    private static func watermarkText(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...1, usage: "watermark_text is wmt:BASE64_TEXT")
        guard option.has(0) else {
            reading.mark = nil
            return
        }
        guard let bytes = Base64URL.decode(option.values[0]), let text = String(bytes: bytes, encoding: .utf8), !text.isEmpty,
            bytes.count <= ImageProcessors.Watermark.Mark.maximumTextBytes, !bytes.contains(0)
        else {
            throw option.failure("the watermark's text is URL-safe base64 of 1 to \(ImageProcessors.Watermark.Mark.maximumTextBytes) bytes of UTF-8")
        }
        do {
            _ = try ImageProcessors.Watermark.Mark.checkText(text)
        } catch .processingFailed(_, let reason) {
            throw option.failure("the watermark's text: \(reason)")
        } catch {
            throw option.failure("the watermark's text: \(error.description)")
        }
        reading.mark = .text(text)
    }
}
