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
            // The first byte picks a plain decode or a thumbnail, so both paths are explored.
            let thumbnail = bytes.first.map { $0 & 1 == 1 ? ImageRequest.Thumbnail(width: 64, height: 64) : nil } ?? nil
            _ = try? Self.vips.decode(bytes, thumbnail: thumbnail, maximumPixels: 4_000_000)
        case .cacheEntry:
            // With and without the key check, as reads and maintenance scans do.
            _ = try? DiskEntryFormat.decode(bytes, expectedKey: nil)
            _ = try? DiskEntryFormat.decode(bytes, expectedKey: "https://example.com/a.png")
        }
    }
}
