import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("Download queue: bounded, by priority, FIFO or LIFO")
struct SchedulingTests {
    /// Fills both download slots with gated downloads, queues 20 more with the given
    /// priorities, then frees one slot, so the queue drains one download at a time in the
    /// order it grants them; returns that order as the server saw it.
    static func arrivalOrder(order: ImagePipeline.DownloadOrder, priorities: [ImageRequest.Priority]) async throws -> [Int] {
        try await withTestFixture(configure: {
            $0.maximumConcurrentDownloads = 2
            $0.downloadOrder = order
            // The blockers' responses wait, by design, until the twenty queued downloads are
            // done, which on two cores with the whole suite starting at once took over a
            // minute: the pipeline's idle and total timeouts would end them first, and the
            // order is what is tested here, not those limits (tested in their own suites).
            $0.idleTimeout = .seconds(600)
            $0.totalTimeout = .seconds(600)
        }) { fixture in
            let bytes = try TestImages.texture(width: 16, height: 16, format: .png)
            let gates = [Gate(), Gate()]
            for blocker in 0..<2 {
                fixture.server.serve("/blocker\(blocker).png", .image(bytes, gate: gates[blocker]))
            }
            for index in priorities.indices { fixture.server.serve("/q\(index).png", .image(bytes)) }
            let blockers = (0..<2).map { fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/blocker\($0).png"))) }
            try await waitUntil { fixture.server.totalRequests == 2 }
            let queued = priorities.enumerated().map { index, priority in
                fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/q\(index).png"), priority: priority))
            }
            try await waitUntil { fixture.pipeline.downloadQueue.waiting == priorities.count }
            #expect(fixture.pipeline.downloadQueue.running == 2)
            gates[0].open()
            for task in queued { _ = try await task.response }
            #expect(fixture.pipeline.downloadQueue.running == 1, "the other slot is still held")
            gates[1].open()
            for task in blockers { _ = try await task.response }
            return fixture.server.requestLog.dropFirst(2).map { Int($0.dropFirst(2).dropLast(4))! }
        }
    }

    @Test func fifoWithinPriorityHighestFirst() async throws {
        let priorities: [ImageRequest.Priority] = (0..<20).map { [.low, .normal, .veryHigh, .veryLow, .high][$0 % 5] }
        let order = try await Self.arrivalOrder(order: .fifo, priorities: priorities)
        let expected = priorities.indices.sorted {
            priorities[$0] != priorities[$1] ? priorities[$0] > priorities[$1] : $0 < $1
        }
        #expect(order == expected)
    }

    @Test func lifoWithinPriority() async throws {
        let priorities: [ImageRequest.Priority] = (0..<20).map { $0 < 10 ? .normal : .high }
        let order = try await Self.arrivalOrder(order: .lifo, priorities: priorities)
        let expected = Array((10..<20).reversed()) + Array((0..<10).reversed())
        #expect(order == expected)
    }

    /// Serves `/NAME.png` for each name, and starts a download of `/blocker.png` that holds
    /// the pipeline's only slot until the returned gate opens.
    static func occupyOnlySlot(_ fixture: TestFixture, alsoServing names: [String]) async throws -> (ImageTask, Gate) {
        let bytes = try TestImages.texture(width: 16, height: 16, format: .png)
        let gate = Gate()
        fixture.server.serve("/blocker.png", .image(bytes, gate: gate))
        for name in names { fixture.server.serve("/\(name).png", .image(bytes)) }
        let blocker = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/blocker.png")))
        try await waitUntil { fixture.server.totalRequests == 1 }
        return (blocker, gate)
    }

    @Test func priorityChangesWhileQueued() async throws {
        try await withTestFixture(configure: { $0.maximumConcurrentDownloads = 1 }) { fixture in
            let (blocker, gate) = try await Self.occupyOnlySlot(fixture, alsoServing: ["a", "b", "c"])
            let a = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/a.png")))
            let b = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/b.png")))
            let c = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/c.png"), priority: .low))
            try await waitUntil { fixture.pipeline.inFlightTaskCount == 12 }  // load, decode and fetch for each
            c.priority = .veryHigh
            gate.open()
            for task in [blocker, a, b, c] { _ = try await task.response }
            #expect(fixture.server.requestLog == ["/blocker.png", "/c.png", "/a.png", "/b.png"])
        }
    }

    @Test func sharedDownloadRunsAtHighestSubscriberPriority() async throws {
        try await withTestFixture(configure: { $0.maximumConcurrentDownloads = 1 }) { fixture in
            let (blocker, gate) = try await Self.occupyOnlySlot(fixture, alsoServing: ["x", "y"])
            let x = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/x.png"), priority: .normal))
            let yLow = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/y.png"), priority: .veryLow))
            let yHigh = fixture.pipeline.imageTask(
                with: ImageRequest(url: fixture.server.url("/y.png"), thumbnail: .init(width: 4, height: 4), priority: .veryHigh))
            // blocker, x: a load, a decode and a fetch each; y: two loads and two decodes sharing one fetch.
            try await waitUntil { fixture.pipeline.inFlightTaskCount == 11 }
            gate.open()
            for task in [blocker, x, yLow, yHigh] { _ = try await task.response }
            #expect(fixture.server.requestLog == ["/blocker.png", "/y.png", "/x.png"])
        }
    }
}
