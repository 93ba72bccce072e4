import Foundation
import Magpie
import MagpieTesting
import Testing

/// Every corpus file and a set of bombs, each decoded in a separate process that measures it, as
/// the pipeline decodes (every frame of an animation): each must decode or fail cleanly within
/// 2 s and 256 MB.
@Suite("Hostile images")
struct HostileImageTests {
    static let timeLimit = 2000.0
    static let memoryLimit = 256 * 1024 * 1024
    /// A server's setting: room for 12-megapixel photos, not for 100-megapixel bitmaps.
    static let maximumPixels = 24_000_000

    /// Bombs that must be refused, by name.
    static func bombs() throws -> [(name: String, bytes: [UInt8])] {
        [
            ("png-header-50000x50000.png", TestImages.pngBomb(width: 50_000, height: 50_000)),
            ("gif-header-65535x65535.gif", TestImages.gifBomb(width: 65_535, height: 65_535)),
            ("jpeg-header-65000x65000.jpg", try TestImages.jpegBomb(width: 65_000, height: 65_000)),
            ("webp-header-16383x16383.webp", try TestImages.webpBomb(width: 16_383, height: 16_383)),
            ("gif-5000-frames.gif", TestImages.gifBomb(width: 200, height: 200, frames: 5_000)),
            // Each frame is allowed; all 40 (160 MP) are not.
            ("gif-40-frames-of-2000x2000.gif", TestImages.gifBomb(width: 2000, height: 2000, frames: 40)),
        ]
    }

    /// At full size, and as an 8 px thumbnail, which sends every JPEG of 64 px or more through
    /// the 1/8-scale paths (the DC-only one for progressive files).
    @Test(arguments: [nil, 8])
    func everyFileDecodesOrFailsWithinBounds(thumbnailBox: Int?) async throws {
        let probe = try MagpieTool.locate("MagpieProbe")
        defer { probe.cleanUp() }
        var files = Corpus.entries.map(\.url.path)
        try #require(files.count > 100, "the corpus is missing")
        var refused: Set<String> = []
        for (name, bytes) in try Self.bombs() {
            let file = probe.home.appendingPathComponent(name)
            try Data(bytes).write(to: file)
            files.append(file.path)
            // Animations are refused from the header whether thumbnailed or not: the frame and
            // animation pixel limits apply to both.
            refused.insert(file.path)
        }
        // Declares 3000 x 3000 (allowed) but its data inflates to 2 GB of zeros.
        let inflating = probe.home.appendingPathComponent("png-inflates-to-2GB.png")
        try Data(TestImages.pngBomb(width: 3000, height: 3000, inflatedBytes: 2 << 30)).write(to: inflating)
        files.append(inflating.path)

        let mode = thumbnailBox.map { ["thumbnail", "\(Self.maximumPixels)", "\($0)"] } ?? ["decode", "\(Self.maximumPixels)"]
        let result = try await probe.run(mode + files, limit: .seconds(600))
        #expect(result.status == 0, "the decoding process survived: \(result.standardError.suffix(2000))")
        let reports = try result.outputLines.map { try JSONDecoder().decode(DecodeReport.self, from: Data($0.utf8)) }
        #expect(reports.count == files.count)
        for report in reports {
            let name = report.file.split(separator: "/").suffix(2).joined(separator: "/")
            #expect(report.milliseconds < Self.timeLimit, "\(name) took \(Int(report.milliseconds)) ms")
            #expect(report.peakMemoryIncrease < Self.memoryLimit, "\(name) took \(report.peakMemoryIncrease >> 20) MB")
            if refused.contains(report.file) {
                #expect(!report.ok, "\(name) must be refused")
                #expect(report.error?.isEmpty == false)
            }
        }
        let slowest = reports.max { $0.milliseconds < $1.milliseconds }
        let hungriest = reports.max { $0.peakMemoryIncrease < $1.peakMemoryIncrease }
        print("hostile images (\(mode[0])): \(reports.count) files; slowest \(slowest?.file ?? "") \(Int(slowest?.milliseconds ?? 0)) ms; "
            + "most memory \(hungriest?.file ?? "") \((hungriest?.peakMemoryIncrease ?? 0) >> 20) MB")
    }
}
