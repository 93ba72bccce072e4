import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("Cancellation per subscriber")
struct CancellationTests {
    /// A route slow enough that a test can cancel while the body is streaming.
    static func slowRoute(_ bytes: [UInt8]) -> ServedRoute {
        ServedRoute(body: bytes, contentType: "image/jpeg", bytesPerSecond: max(1, bytes.count / 4))
    }


    @Test func cancellingOneOfTwoLeavesTheOther() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 500, height: 400)
            fixture.server.serve("/s.jpg", Self.slowRoute(bytes))
            let request = ImageRequest(url: fixture.server.url("/s.jpg"))
            let first = fixture.pipeline.imageTask(with: request)
            let second = fixture.pipeline.imageTask(with: request)
            try await waitUntil { fixture.server.statistics(for: "/s.jpg").bytesSent > 0 }
            first.cancel()
            await #expect(throws: MagpieError.cancelled) { try await first.response }
            let response = try await second.response
            #expect(response.image.width == 500)
            #expect(fixture.server.statistics(for: "/s.jpg").requests == 1)
            #expect(fixture.server.statistics(for: "/s.jpg").connectionsClosedEarly == 0)
        }
    }

    @Test func cancellingEveryoneClosesTheConnection() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 600, height: 400)
            fixture.server.serve("/c.jpg", Self.slowRoute(bytes))
            let request = ImageRequest(url: fixture.server.url("/c.jpg"))
            let tasks = (0..<3).map { _ in fixture.pipeline.imageTask(with: request) }
            try await waitUntil { fixture.server.statistics(for: "/c.jpg").bytesSent > 0 }
            for task in tasks { task.cancel() }
            for task in tasks { await #expect(throws: MagpieError.cancelled) { try await task.response } }
            try await waitUntil { fixture.server.statistics(for: "/c.jpg").connectionsClosedEarly == 1 }
            let statistics = fixture.server.statistics(for: "/c.jpg")
            #expect(statistics.connectionsClosedEarly == 1)
            #expect(statistics.bytesSent < bytes.count)
            try await waitUntil { fixture.pipeline.inFlightTaskCount == 0 }
            #expect(fixture.pipeline.inFlightTaskCount == 0)
            // Nothing partial was cached.
            #expect(await fixture.pipeline.dataCache?.entry(for: request.url.absoluteString) == nil)
        }
    }

    @Test func cancellingTheAwaitingSwiftTaskCancelsTheLoad() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 600, height: 400)
            fixture.server.serve("/t.jpg", Self.slowRoute(bytes))
            let url = fixture.server.url("/t.jpg")
            let waiting = Task { try await fixture.pipeline.image(for: url) }
            try await waitUntil { fixture.server.statistics(for: "/t.jpg").bytesSent > 0 }
            waiting.cancel()
            await #expect(throws: MagpieError.cancelled) { try await waiting.value }
            try await waitUntil { fixture.server.statistics(for: "/t.jpg").connectionsClosedEarly == 1 }
            #expect(fixture.server.statistics(for: "/t.jpg").connectionsClosedEarly == 1)
        }
    }

    @Test func cancellingAQueuedLoadFreesItsSlot() async throws {
        try await withTestFixture(configure: { $0.maximumConcurrentDownloads = 1 }) { fixture in
            let bytes = try TestImages.texture(width: 100, height: 100)
            fixture.server.serve("/busy.jpg", ServedRoute(body: bytes, contentType: "image/jpeg", latency: .milliseconds(300)))
            fixture.server.serve("/queued.jpg", .image(bytes))
            fixture.server.serve("/next.jpg", .image(bytes))
            let busy = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/busy.jpg")))
            try await waitUntil { fixture.server.statistics(for: "/busy.jpg").requests == 1 }
            let queued = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/queued.jpg")))
            let next = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/next.jpg")))
            queued.cancel()
            await #expect(throws: MagpieError.cancelled) { try await queued.response }
            _ = try await busy.response
            _ = try await next.response
            #expect(fixture.server.statistics(for: "/queued.jpg").requests == 0)
            #expect(fixture.server.requestLog == ["/busy.jpg", "/next.jpg"])
        }
    }
}
