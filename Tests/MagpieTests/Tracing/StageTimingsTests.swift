import Foundation
@testable import Magpie
import MagpieOrigin
import MagpieTesting
import Testing

/// The time each stage reports is its own: ``Stage`` takes what the work waited for (the
/// stages before it, a queue) from the work's time, so a request's timings add up to no more
/// than the request took, and a slow origin shows as download alone.
@Suite("Stage timings")
struct StageTimingsTests {
    /// How long the origin holds the body back. Measured wall time is what is under test (it
    /// is what `Server-Timing` reports), so the hold is a real one.
    static let hold = Duration.milliseconds(300)

    @Test func eachStageReportsItsOwnTimeAndTheWaitIsTheDownloads() async throws {
        try await withTestFixture { fixture in
            let gate = Gate()
            fixture.server.serve("/slow.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg), gate: gate))
            let request = ImageRequest(url: fixture.server.url("/slow.jpg"), processors: [.resize(width: 64, height: 64, fit: .fill)])
            let pipeline = fixture.pipeline
            let started = ContinuousClock.now
            async let encoded = pipeline.encodedImage(for: request, encoding: EncodingRequest(format: .fixed(.webp), quality: 70))
            try await waitUntil { fixture.server.totalRequests == 1 }
            try await Task.sleep(for: Self.hold)
            gate.open()
            let timings = try await encoded.timings.durations
            let took = ContinuousClock.now - started

            for stage in [StageTimings.Stage.download, .decode, .process, .encode] { #expect(timings[stage] != nil, "\(stage) measured: \(timings)") }
            #expect(try #require(timings[.download]) >= Self.hold, "\(timings)")
            // Measured around the whole work, each later stage would hold the download's wait
            // too: four times the hold in all. (Each stage's own time is wall time, so on a
            // loaded machine it holds waits for a thread; only the sum is compared.)
            #expect(timings.values.reduce(.zero, +) <= took, "\(timings) in \(took)")
        }
    }

    @Test func aDownloadSlotsQueueIsQueueTime() async throws {
        try await withTestFixture(configure: { $0.maximumConcurrentDownloads = 1 }) { fixture in
            let gate = Gate()
            fixture.server.serve("/first.jpg", .image(try TestImages.texture(width: 64, height: 48, format: .jpeg), gate: gate))
            fixture.server.serve("/second.jpg", .image(try TestImages.texture(width: 64, height: 48, format: .jpeg)))
            let pipeline = fixture.pipeline
            async let first = pipeline.data(for: ImageRequest(url: fixture.server.url("/first.jpg")))
            try await waitUntil { fixture.server.totalRequests == 1 }
            let startedSecond = ContinuousClock.now
            async let second = pipeline.data(for: ImageRequest(url: fixture.server.url("/second.jpg")))
            try await waitUntil { pipeline.scheduler.counts.waiting == 1 }
            try await Task.sleep(for: Self.hold)
            gate.open()
            let (one, two) = try await (first, second)
            let tookSecond = ContinuousClock.now - startedSecond
            #expect(one.timings.durations[.queue] ?? .zero < Self.hold, "the first had the slot at once")
            #expect(try #require(two.timings.durations[.queue], "\(two.timings)") >= Self.hold - .milliseconds(50))
            #expect(two.timings.durations[.download] != nil)
            // The slot's wait counted as download too would make the two exceed the request.
            #expect(two.timings.durations.values.reduce(.zero, +) <= tookSecond, "\(two.timings) in \(tookSecond)")
        }
    }
}
