import Foundation
import Magpie

/// What one fuzzing input is fed to. The target is chosen with `MAGPIE_FUZZ_TARGET`, since
/// libFuzzer owns the command line.
enum FuzzTarget: String {
    case decoder
    case cacheEntry = "cache-entry"

    static let selected = FuzzTarget(rawValue: ProcessInfo.processInfo.environment["MAGPIE_FUZZ_TARGET"] ?? "") ?? .decoder

    /// A small pixel limit keeps each input cheap; the limit's own checks are part of what is fuzzed.
    static let vips = VipsDecoder()

    func run(_ bytes: [UInt8]) {
        switch self {
        case .decoder:
            // The first byte picks a plain decode or a thumbnail, so both paths are explored; an
            // 8 px box sends any JPEG of 64 px or more through the 1/8-scale (DC-only) paths.
            // Another bit asks for every frame, which walks a GIF's blocks and renders
            // animations frame by frame.
            let thumbnail = bytes.first.map { $0 & 1 == 1 ? ImageRequest.Thumbnail(width: $0 & 2 == 2 ? 8 : 64, height: $0 & 2 == 2 ? 8 : 64) : nil } ?? nil
            let options = DecodingOptions(
                thumbnail: thumbnail, maximumPixels: 4_000_000, decodesAllFrames: (bytes.first ?? 0) & 4 == 4,
                maximumAnimationFrames: 64, maximumAnimationPixels: 8_000_000)
            _ = try? Self.vips.decode(bytes, options: options)
            // The header alone, with what a JPEG's segments announce (a gain map).
            _ = try? ImageInfo(reading: bytes)
        case .cacheEntry:
            // With and without the key check, as reads and maintenance scans do.
            _ = try? DiskEntryFormat.decode(bytes, expectedKey: nil)
            _ = try? DiskEntryFormat.decode(bytes, expectedKey: "https://example.com/a.png")
        }
    }
}
