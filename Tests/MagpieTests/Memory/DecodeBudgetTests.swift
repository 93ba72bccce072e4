import Foundation
import Magpie
import MagpieTesting
import Testing

/// Eight small progressive 49-megapixel JPEGs (1.2 MB each, full-size chroma) handed to a
/// crawler at once: each makes libjpeg hold 294 MB of coefficients while it decodes, however
/// small the thumbnail. Measured in a child process, through the library with its default
/// configuration and through `magpie fetch --concurrency 8`: the decode budget (256 MB) lets
/// one such file decode at a time, so the peak stays at one decode plus the process's working
/// set; before it, every decoding thread held one (two here, 665 MB; sixteen on a large server).
@Suite("Decode memory budget")
struct DecodeBudgetTests {
    /// What the process holds besides decodes: code, libvips, the HTTP client, bodies, the
    /// memory cache's thumbnails. A second 294 MB decode at once would pass it.
    static let workingSet = 160 << 20
    static let box = 256

    @Test func eightProgressiveBombsThroughThePipeline() async throws {
        try await withBombs { urls, cost in
            let probe = try MagpieTool.locate("MagpieProbe")
            defer { probe.cleanUp() }
            let cache = probe.home.appendingPathComponent("cache")
            let result = try await probe.run(["burst", cache.path, "\(Self.box)"] + urls.map(\.absoluteString), limit: .seconds(600))
            try #require(result.status == 0, "\(result.standardError.suffix(2000))")
            let report = try JSONDecoder().decode(BurstReport.self, from: Data(result.standardOutput.utf8))
            #expect(report.loaded == urls.count, "\(report.failures)")
            let bound = max(ImagePipeline.Configuration().decodeMemoryBudget, cost) + Self.workingSet
            print("decode budget, pipeline: peak \(report.peak >> 20) MB for \(urls.count) decodes of \(cost >> 20) MB each (bound \(bound >> 20) MB)")
            #expect(report.peak < bound, "peak \(report.peak >> 20) MB, bound \(bound >> 20) MB")
        }
    }

    @Test func eightProgressiveBombsThroughMagpieFetch() async throws {
        try await withBombs { urls, cost in
            let tool = try MagpieTool.locate()
            defer { tool.cleanUp() }
            // GNU time reports the peak resident size of the command it runs (%M, in kB).
            let timed = MagpieTool(executable: URL(fileURLWithPath: "/usr/bin/time"), home: tool.home)
            let output = tool.home.appendingPathComponent("out")
            let result = try await timed.run(
                ["-f", "peak-kb %M", tool.executable.path, "fetch"] + urls.map(\.absoluteString)
                    + ["--concurrency", "8", "--thumbnail", "\(Self.box)x\(Self.box)", "--no-cache", "--output", output.path],
                limit: .seconds(600))
            #expect(result.status == 0, "\(result.standardError.suffix(2000))")
            let line = try #require(result.standardError.split(separator: "\n").last { $0.hasPrefix("peak-kb ") })
            let peak = try #require(Int(line.dropFirst("peak-kb ".count))) * 1024
            let written = try FileManager.default.contentsOfDirectory(atPath: output.path)
            #expect(written.count == urls.count)
            let bound = max(256_000_000, cost) + Self.workingSet
            print("decode budget, magpie fetch: peak \(peak >> 20) MB for \(urls.count) decodes of \(cost >> 20) MB each (bound \(bound >> 20) MB)")
            #expect(peak < bound, "peak \(peak >> 20) MB, bound \(bound >> 20) MB")
        }
    }

    /// Serves the same 7000×7000 progressive 4:4:4 JPEG under eight URLs (eight loads, eight
    /// decodes) and gives `body` the URLs and what one decode costs by the budget's estimate.
    private func withBombs(_ body: ([URL], Int) async throws -> Void) async throws {
        let bytes = try ProgressiveBomb.make()
        let cost = DecodeMemory.estimate(bytes, options: DecodingOptions(thumbnail: .init(width: Self.box, height: Self.box)))
        // 875×875 blocks in each of three components, 128 bytes each: the file really is a bomb.
        try #require(cost >= 294_000_000 && bytes.count < 2_000_000, "\(cost) bytes to decode, \(bytes.count) in the file")
        let origin = try await ImageServer.start()
        let urls = (0..<8).map { origin.url("/bomb-\($0).jpg") }
        for url in urls { origin.serve(url.path, .image(bytes)) }
        do {
            try await body(urls, cost)
        } catch {
            await origin.shutdown()
            throw error
        }
        await origin.shutdown()
    }

    private struct BurstReport: Decodable {
        let loaded: Int
        let failures: [String]
        let peak: Int
    }
}
