import Foundation
import Magpie

/// imgproxy's options about what is written and how it is sent: format and quality, metadata,
/// pass-through, expiry, file name, frames and size budget.
extension OptionParser {
    static let outputReaders: [(names: [String], read: Reader)] = [
        (["strip_metadata", "sm"], { option, _, _ throws(ProxyURLError) in
            guard try option.bool() else { throw option.failure("Magpie writes no metadata; strip_metadata:0 is not supported") }
        }),
        (["strip_color_profile", "scp"], { option, _, _ throws(ProxyURLError) in
            guard try option.bool() else {
                throw option.failure("Magpie converts every image to sRGB and writes no profile; strip_color_profile:0 is not supported")
            }
        }),
        (["keep_copyright", "kcr"], { option, reading, _ throws(ProxyURLError) in reading.options.keepsCopyright = try option.bool() }),
        (["preserve_hdr", "ph"], { option, reading, _ throws(ProxyURLError) in reading.options.preservesHighDepth = try option.bool() }),
        (["quality", "q"], quality), (["format_quality", "fq"], formatQuality), (["format", "f", "ext"], outputFormat),
        (["skip_processing", "skp"], { option, reading, _ throws(ProxyURLError) in
            for index in option.values.indices { reading.options.skipProcessing.insert(try anyFormat(option, index)) }
        }),
        (["raw"], { option, reading, _ throws(ProxyURLError) in reading.options.raw = try option.bool() }),
        (["cachebuster", "cb"], { option, reading, _ throws(ProxyURLError) in
            try option.count(1...1, usage: "cachebuster takes one value")
            reading.options.cacheBuster = option.values[0].isEmpty ? nil : option.values[0]
        }),
        (["expires", "exp"], expires),
        (["filename", "fn"], { option, reading, _ throws(ProxyURLError) in
            try option.count(1...2, usage: "filename is fn:NAME or fn:BASE64NAME:1")
            reading.options.filename = try filename(option)
        }),
        (["return_attachment", "att"], { option, reading, _ throws(ProxyURLError) in reading.options.returnAttachment = try option.bool() }),
        (["ff", "first-frame"], { option, reading, _ throws(ProxyURLError) in reading.options.firstFrame = try option.bool() }),
        (["page", "pg"], { option, reading, _ throws(ProxyURLError) in
            try option.count(1...1, usage: "page takes a frame number from 0")
            reading.options.page = try option.count(limit: 100_000)
        }),
        (["max_bytes", "mb"], { option, reading, _ throws(ProxyURLError) in
            try option.count(1...1, usage: "max_bytes takes a number of bytes")
            let bytes = try option.count(limit: Int(Int32.max))
            reading.options.maximumBytes = bytes == 0 ? nil : bytes
        }),
    ]

    private static func quality(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...1, usage: "quality takes one whole number")
        let quality = try option.count(limit: 100)
        reading.options.quality = quality == 0 ? nil : quality
    }

    private static func formatQuality(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        guard option.values.count % 2 == 0 else { throw option.failure("format_quality is fq:FORMAT:QUALITY[:FORMAT:QUALITY...]") }
        for index in stride(from: 0, to: option.values.count, by: 2) {
            let chosen = try format(option, index)
            let quality = try option.count(index + 1, limit: 100)
            reading.options.formatQuality[chosen] = quality == 0 ? nil : quality
        }
    }

    private static func outputFormat(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        try option.count(1...1, usage: "format takes one name")
        switch option.values[0].lowercased() {
        case "auto": reading.options.format = .auto
        // Written only from an SVG source, passed through; any other source is a 422 then.
        case "svg": reading.options.format = .fixed(.svg)
        default: reading.options.format = .fixed(try format(option, 0))
        }
    }

    private static func expires(_ option: OptionValues, _ reading: inout Reading, _ parser: OptionParser) throws(ProxyURLError) {
        guard option.values.count == 1, let seconds = Int(option.values[0]) else { throw option.failure("expires takes a Unix time in seconds") }
        if seconds > 0, Double(seconds) < parser.now().timeIntervalSince1970 {
            throw ProxyURLError.expired("the URL expired at \(Date(timeIntervalSince1970: Double(seconds)))")
        }
        reading.options.expires = seconds > 0 ? seconds : nil
    }
}
