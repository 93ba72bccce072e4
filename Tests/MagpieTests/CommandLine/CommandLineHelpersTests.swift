import Foundation
import Magpie
@testable import MagpieCLI
import Testing

@Suite("Command-line helpers")
struct CommandLineHelpersTests {
    @Test(arguments: [
        ("100MB", 100_000_000), ("1.5 GB", 1_500_000_000), ("512MiB", 512 * 1024 * 1024), ("2048", 2048),
        ("10k", 10_000), ("1 B", 1), ("0", 0),
    ])
    func sizesParse(text: String, bytes: Int) {
        #expect(ByteCount.parse(text) == bytes)
    }

    @Test(arguments: ["", "lots", "-5MB", "MB", "1e400", "5XB"])
    func nonsenseSizesAreRefused(text: String) {
        #expect(ByteCount.parse(text) == nil)
    }

    @Test func sizesFormatWithThreeSignificantDigits() {
        #expect(ByteCount.format(999) == "999 B")
        #expect(ByteCount.format(4_200) == "4.20 kB")
        #expect(ByteCount.format(13_140_000) == "13.1 MB")
        #expect(ByteCount.format(250_000_000_000) == "250 GB")
    }

    @Test func outputNamesFollowInputOrderAndNeverClash() {
        let urls = [
            "http://a/x/cat.jpg", "http://b/y/cat.png", "http://c/CAT.webp", "http://d/", "http://e/../..", "http://f/a%2Fb.jpg",
            "http://g/.hidden.png",
        ].map { URL(string: $0) }
        let names = OutputFolder.baseNames(for: urls + [nil])
        #expect(names == ["cat", "cat-2", "CAT-3", "image", "image-2", "a_b", "hidden", "image-3"])
        #expect(names.allSatisfy { !$0.contains("/") && !$0.hasPrefix(".") })
    }

    @Test func latencyPercentilesUseNearestRank() {
        var summary = FetchSummary()
        summary.results = (1...20).map { FetchResult.failure(url: "u\($0)", message: "", milliseconds: 0) }
        #expect(summary.latency(percentile: 0.5) == nil, "failures have no latency")
        summary.results = (1...20).map { index in
            .success(url: "u\(index)", source: .network, width: 1, height: 1, frames: 1, format: .png, bytes: 0, milliseconds: Double(index), file: nil)
        }
        #expect(summary.latency(percentile: 0.5) == 10)
        #expect(summary.latency(percentile: 0.95) == 19)
    }

    @Test func theProgressBarShowsCountBytesRateAndTimeLeft() {
        let start = ContinuousClock.now
        var bar = ProgressBar(total: 40, started: start)
        bar.done = 10
        bar.bytes = 2_000_000
        let line = bar.line(now: start + .seconds(2), width: 8)
        #expect(line == "[██░░░░░░] 10/40  2.00 MB  1.00 MB/s  ETA 0:06")
        #expect(ProgressBar.clock(3725) == "1:02:05")
    }
}
