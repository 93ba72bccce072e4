import Foundation
import Magpie
import MagpieTesting
import Testing

/// A child process loads hundreds of distinct URLs of real-size photos through one pipeline and
/// reports its resident memory; finished loads must leave nothing behind. One leaked bitmap per
/// load (12 MB on average for these photos) or even one leaked body (0.8 MB) would grow the
/// process by hundreds of megabytes here, far past the bound.
@Suite("Sustained load keeps memory flat")
struct SustainedLoadTests {
    /// Growth allowed between the sample after warm-up and the last one: allocator slack and
    /// the odd larger working set, nothing per load.
    static let allowedGrowth = 100 << 20

    static func soak(
        loads: Int, concurrency: Int = 6, box: Int?, memoryCache: Bool, every: Int, folder: URL? = nil
    ) async throws -> [SoakSample] {
        let photos = try folder ?? Photos.folder(count: 18)
        let probe = try MagpieTool.locate("MagpieProbe")
        defer { probe.cleanUp() }
        let arguments = [
            "soak", photos.path, "\(loads)", "\(concurrency)", box.map(String.init) ?? "full",
            memoryCache ? "cache" : "no-cache", "\(every)",
        ]
        let result = try await probe.run(arguments, limit: .seconds(3600))
        try #require(result.status == 0, "the soak process failed: \(result.standardError.suffix(2000))")
        let samples = try result.outputLines.map { try JSONDecoder().decode(SoakSample.self, from: Data($0.utf8)) }
        for sample in samples {
            print("soak \(box.map { "\($0) px" } ?? "full size") \(memoryCache ? "cached" : "uncached"): "
                + "\(sample.loads) loads, RSS \(sample.resident >> 20) MB, peak \(sample.peak >> 20) MB, "
                + "memory cache \(sample.memoryCacheCost >> 20) MB")
        }
        try #require(samples.last?.loads == loads)
        #expect(samples.last?.failures == 0)
        return samples
    }

    /// RSS swings by tens of megabytes with which photos are in flight when a sample is taken,
    /// so six samples after warm-up are compared with the last six, by their medians.
    static func medianResident(_ samples: some Collection<SoakSample>) -> Int {
        let sorted = samples.map(\.resident).sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    @Test func fullSizePhotosWithoutTheMemoryCache() async throws {
        let samples = try await Self.soak(loads: 300, box: nil, memoryCache: false, every: 12)
        let warm = Self.medianResident(samples.filter { $0.loads >= 36 }.prefix(6))
        let late = Self.medianResident(samples.suffix(6))
        try #require(warm > 0 && late > 0)
        #expect(late - warm < Self.allowedGrowth,
                "RSS grew from a median of \(warm >> 20) MB after warm-up to \(late >> 20) MB at the end")
    }

    /// Animated GIFs and WebPs of 40 frames at 480×270 (21 MB decoded each), every frame
    /// decoded: a leaked animation would grow the process by gigabytes over these loads.
    @Test func animationsWithoutTheMemoryCache() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-soak-animations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for index in 0..<6 {
            let clip = TestImages.panningClip(width: 480, height: 270, frames: 40, seed: UInt32(index + 1))
            let format: ImageFormat = index.isMultiple(of: 2) ? .gif : .webp
            try Data(try ImageEncoder(quality: 80).encode(clip, as: format)).write(to: folder.appendingPathComponent("clip-\(index).\(format.fileExtension)"))
        }
        let samples = try await Self.soak(loads: 240, concurrency: 4, box: nil, memoryCache: false, every: 12, folder: folder)
        let warm = Self.medianResident(samples.filter { $0.loads >= 36 }.prefix(6))
        let late = Self.medianResident(samples.suffix(6))
        try #require(warm > 0 && late > 0)
        #expect(late - warm < Self.allowedGrowth,
                "RSS grew from a median of \(warm >> 20) MB after warm-up to \(late >> 20) MB at the end")
    }

    /// Tens of thousands of loads, as thumbnails and with the default memory cache:
    /// `MAGPIE_SOAK_LOADS=20000 swift test --filter SustainedLoadTests`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["MAGPIE_SOAK_LOADS"] != nil))
    func longRunOfThumbnailsWithTheMemoryCache() async throws {
        let loads = Int(ProcessInfo.processInfo.environment["MAGPIE_SOAK_LOADS"] ?? "") ?? 20_000
        let samples = try await Self.soak(loads: loads, box: 256, memoryCache: true, every: 500)
        // The memory cache fills up to its limit, and the allocator's heaps grow with it; once it
        // is full, RSS beside what it holds must stay flat.
        let fullCache = samples.map(\.memoryCacheCost).max() ?? 0
        let warm = try #require(samples.first { $0.loads >= 1000 && $0.memoryCacheCost >= fullCache * 98 / 100 })
        let last = try #require(samples.last)
        let growth = (last.resident - last.memoryCacheCost) - (warm.resident - warm.memoryCacheCost)
        #expect(growth < Self.allowedGrowth, "RSS beyond the memory cache grew by \(growth >> 20) MB")
    }
}
