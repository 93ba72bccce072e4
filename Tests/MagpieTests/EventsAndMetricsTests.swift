import Foundation
import Magpie
import MagpieTesting
import MetricsTestKit
import NIOConcurrencyHelpers
import Testing

@Suite("Pipeline events and metrics")
struct EventsAndMetricsTests {
    /// Collects events per load.
    final class Recorder: Sendable {
        private let events = NIOLockedValueBox([UInt64: [String]]())

        func record(_ event: PipelineEvent) {
            let name: String =
                switch event {
                case .started: "started"
                case .response(_, _, let status, _): "response \(status)"
                case .progress: "progress"
                case .finished(_, _, _, _, let source): "finished \(source.rawValue)"
                case .cancelled: "cancelled"
                case .failed: "failed"
                }
            events.withLockedValue { events in
                // Progress events repeat; keep one per run so orders are comparable.
                if name == "progress", events[event.task]?.last == "progress" { return }
                events[event.task, default: []].append(name)
            }
        }

        func events(of task: UInt64) -> [String] { events.withLockedValue { $0[task] ?? [] } }
        var all: [[String]] { events.withLockedValue { Array($0.values) } }
    }

    @Test func eventsArriveInOrderPerLoad() async throws {
        try await withTestFixture { fixture in
            let recorder = Recorder()
            let observation = fixture.pipeline.addObserver { recorder.record($0) }
            fixture.server.serve("/ok.png", .image(try TestImages.texture(width: 20, height: 20, format: .png)))
            fixture.server.serve("/missing.png", .status(404))
            let ok = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/ok.png")))
            let missing = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/missing.png")))
            _ = try await ok.response
            _ = try? await missing.response
            let again = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/ok.png")))
            _ = try await again.response
            #expect(recorder.events(of: ok.id) == ["started", "response 200", "progress", "finished network"])
            #expect(recorder.events(of: missing.id) == ["started", "response 404", "failed"])
            #expect(recorder.events(of: again.id) == ["finished memory"])
            observation.cancel()
            _ = try await fixture.pipeline.image(for: fixture.server.url("/ok.png"))
            #expect(recorder.all.count == 3, "no events after the observation is cancelled")
        }
    }

    @Test func eventsAsAnAsyncSequence() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/s.png", .image(try TestImages.texture(width: 8, height: 8, format: .png)))
            let stream = fixture.pipeline.events()
            _ = try await fixture.pipeline.image(for: fixture.server.url("/s.png"))
            var seen: [String] = []
            for await event in stream {
                if case .started = event { seen.append("started") }
                if case .finished(_, _, let bytes, _, .network) = event {
                    seen.append("finished")
                    #expect(bytes > 0)
                    break
                }
            }
            #expect(seen == ["started", "finished"])
        }
    }

    @Test func metricCountersMatchTheServerAfterAMixedWorkload() async throws {
        let metrics = TestMetrics()
        try await withTestFixture(configure: { $0.metricsFactory = metrics }) { fixture in
            var served = 0
            for index in 0..<6 {
                let bytes = try TestImages.texture(width: 16 + index, height: 16, format: .png)
                served += bytes.count
                fixture.server.serve("/m\(index).png", .image(bytes))
            }
            fixture.server.serve("/bad.png", .status(404))
            for index in 0..<6 { _ = try await fixture.pipeline.image(for: fixture.server.url("/m\(index).png")) }
            for index in 0..<3 { _ = try await fixture.pipeline.image(for: fixture.server.url("/m\(index).png")) }  // memory
            fixture.pipeline.memoryCache?.removeAll()
            for index in 3..<6 { _ = try await fixture.pipeline.image(for: fixture.server.url("/m\(index).png")) }  // disk
            _ = try? await fixture.pipeline.image(for: fixture.server.url("/bad.png"))

            #expect(try metrics.expectCounter("magpie_downloads_total").totalValue == Int64(fixture.server.totalRequests))
            #expect(try metrics.expectCounter("magpie_loads_total", [("source", "network")]).totalValue == 6)
            #expect(try metrics.expectCounter("magpie_loads_total", [("source", "memory")]).totalValue == 3)
            #expect(try metrics.expectCounter("magpie_loads_total", [("source", "disk")]).totalValue == 3)
            #expect(try metrics.expectCounter("magpie_failures_total").totalValue == 1)
            #expect(try metrics.expectCounter("magpie_requests_total").totalValue == 13)
            let sent = (0..<6).reduce(0) { $0 + fixture.server.statistics(for: "/m\($1).png").bytesSent }
            #expect(sent == served)
            #expect(try metrics.expectCounter("magpie_downloaded_bytes_total").totalValue == Int64(sent))
            #expect(try metrics.expectTimer("magpie_decode_duration").values.count == 9)
        }
    }
}
