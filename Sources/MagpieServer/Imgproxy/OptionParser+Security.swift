import Foundation
import Magpie

/// imgproxy's per-URL security options: limits a URL sets for itself, accepted only where the
/// operator allows them (`IMGPROXY_ALLOW_SECURITY_OPTIONS`, else a 403 as imgproxy answers),
/// and never above the operator's own limits (0 keeps the operator's).
extension OptionParser {
    /// The operator's limits a URL's security options may lower, and whether they may.
    struct Security: Sendable {
        var allowsURLOptions = false
        var sourcePixels = Int.max
        var sourceBytes = Int.max
        var animationFrames = Int.max
        var resultDimension: Int?
    }

    static let securityReaders: [(names: [String], read: Reader)] = [
        (["max_src_resolution", "msr"], { option, reading, parser throws(ProxyURLError) in
            let pixels = try parser.megapixels(option)
            reading.options.limits.sourcePixels = pixels.map { min($0, parser.security.sourcePixels) }
        }),
        (["max_src_file_size", "msfs"], { option, reading, parser throws(ProxyURLError) in
            let bytes = try parser.whole(option, what: "max_src_file_size")
            reading.options.limits.sourceBytes = bytes.map { min($0, parser.security.sourceBytes) }
        }),
        (["max_animation_frames", "maf"], { option, reading, parser throws(ProxyURLError) in
            guard let frames = try parser.whole(option, what: "max_animation_frames") else {
                throw option.failure("max_animation_frames is a whole number above 0")
            }
            reading.options.limits.animationFrames = min(frames, parser.security.animationFrames)
        }),
        (["max_animation_frame_resolution", "mafr"], { option, reading, parser throws(ProxyURLError) in
            let pixels = try parser.megapixels(option)
            reading.options.limits.framePixels = pixels.map { min($0, parser.security.sourcePixels) }
        }),
        (["max_result_dimension", "mrd"], { option, reading, parser throws(ProxyURLError) in
            let side = try parser.whole(option, what: "max_result_dimension")
            reading.options.limits.resultDimension = side.map { min($0, parser.security.resultDimension ?? $0) } ?? parser.security.resultDimension
        }),
    ]

    /// Megapixels as pixels, `nil` for 0 (the operator's limit).
    private func megapixels(_ option: OptionValues) throws(ProxyURLError) -> Int? {
        try allowed(option)
        try option.count(1...1, usage: "\(option.name) is megapixels")
        let megapixels = try option.number(0, in: 0...1_000_000, what: option.name)
        return megapixels > 0 ? max(1, Int(megapixels * 1_000_000)) : nil
    }

    /// A whole number, `nil` for 0 (the operator's limit).
    private func whole(_ option: OptionValues, what: String) throws(ProxyURLError) -> Int? {
        try allowed(option)
        try option.count(1...1, usage: "\(what) is a whole number")
        let value = try option.count(0, limit: Int(Int32.max))
        return value > 0 ? value : nil
    }

    private func allowed(_ option: OptionValues) throws(ProxyURLError) {
        guard security.allowsURLOptions else {
            throw ProxyURLError(status: 403, message: "option '\(option.segment)': security options are not allowed here (IMGPROXY_ALLOW_SECURITY_OPTIONS)")
        }
    }
}
