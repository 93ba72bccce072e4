import Foundation
@testable import Magpie
import MagpieTesting
import Testing

/// Every object of a load that has ended must be released once its last holder lets go, or a
/// server that loads images for weeks keeps every body and bitmap it ever loaded. Each test holds
/// weak references (the pipeline's ``WorkTracker`` holds them for the shared work) and waits for
/// all of them to become `nil`.
@Suite("Finished work is released", .timeLimit(.minutes(1)))
struct ReleaseTests {
    static func withTrackingFixture<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        configure: (inout ImagePipeline.Configuration) -> Void = { _ in },
        _ body: (TestFixture) async throws -> T
    ) async throws -> T {
        try await withTestFixture(configure: { configuration in
            configuration.tracksWork = true
            configure(&configuration)
        }, body)
    }

    /// Waits until nothing the pipeline tracked (tasks and shared work) is alive, and says which
    /// objects stayed if some do.
    static func expectAllReleased(
        _ pipeline: ImagePipeline, isolation: isolated (any Actor)? = #isolation,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let tracker = try #require(pipeline.workTracker)
        let deadline = ContinuousClock.now + .seconds(10)
        while !tracker.alive.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(tracker.alive == [], "objects of finished loads still alive", sourceLocation: sourceLocation)
        #expect(tracker.trackedCount > 0, "the test tracked nothing", sourceLocation: sourceLocation)
    }

    @Test func completedLoad() async throws {
        try await Self.withTrackingFixture { fixture in
            fixture.server.serve("/a.jpg", .image(try TestImages.texture(width: 640, height: 480)))
            weak var task: ImageTask?
            do {
                let started = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/a.jpg")))
                task = started
                #expect(try await started.response.image.width == 640)
            }
            try await Self.expectAllReleased(fixture.pipeline)
            #expect(task == nil)
        }
    }

    @Test func completedLoadWithoutTheMemoryCache() async throws {
        try await Self.withTrackingFixture(configure: { $0.memoryCache = nil; $0.diskCache = nil }) { fixture in
            fixture.server.serve("/a.jpg", .image(try TestImages.texture(width: 640, height: 480)))
            for _ in 0..<3 {
                _ = try await fixture.pipeline.image(for: fixture.server.url("/a.jpg"))
            }
            try await Self.expectAllReleased(fixture.pipeline)
        }
    }

    @Test func processedLoadsSharingAPrefix() async throws {
        try await Self.withTrackingFixture(configure: { $0.diskCachePolicy = .originalsAndVariants }) { fixture in
            fixture.server.serve("/p.jpg", .image(try TestImages.texture(width: 640, height: 480)))
            let url = fixture.server.url("/p.jpg")
            let crop: any ImageProcessing = .crop(width: 300, height: 300)
            async let first = fixture.pipeline.image(for: ImageRequest(url: url, processors: [crop, .blur(sigma: 1)]))
            async let second = fixture.pipeline.image(for: ImageRequest(url: url, processors: [crop, .grayscale]))
            _ = try await (first, second)
            try await Self.expectAllReleased(fixture.pipeline)
            #expect(fixture.pipeline.workTracker!.trackedCount >= 8, "two loads, two second steps, the shared crop, decode and fetch")
        }
    }

    @Test func cancelledLoad() async throws {
        try await Self.withTrackingFixture { fixture in
            let bytes = try TestImages.texture(width: 600, height: 400)
            fixture.server.serve("/slow.jpg", ServedRoute(body: bytes, contentType: "image/jpeg", bytesPerSecond: bytes.count / 4))
            weak var task: ImageTask?
            do {
                let started = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/slow.jpg")))
                task = started
                try await waitUntil { fixture.server.statistics(for: "/slow.jpg").bytesSent > 0 }
                started.cancel()
                await #expect(throws: MagpieError.cancelled) { try await started.response }
            }
            try await Self.expectAllReleased(fixture.pipeline)
            #expect(task == nil)
        }
    }

    @Test func cancelledWhileQueued() async throws {
        try await Self.withTrackingFixture(configure: { $0.maximumConcurrentDownloads = 1 }) { fixture in
            let gate = Gate()
            let bytes = try TestImages.texture(width: 64, height: 64)
            fixture.server.serve("/busy.jpg", .image(bytes, gate: gate))
            fixture.server.serve("/queued.jpg", .image(bytes))
            do {
                let busy = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/busy.jpg")))
                try await waitUntil { fixture.server.statistics(for: "/busy.jpg").requests == 1 }
                let queued = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/queued.jpg")))
                try await waitUntil { fixture.pipeline.downloadQueue.waiting == 1 }
                queued.cancel()
                await #expect(throws: MagpieError.cancelled) { try await queued.response }
                gate.open()
                _ = try await busy.response
            }
            try await Self.expectAllReleased(fixture.pipeline)
        }
    }

    @Test func failedLoads() async throws {
        try await Self.withTrackingFixture { fixture in
            fixture.server.serve("/missing.jpg", ServedRoute(body: Array("gone".utf8), status: 404, contentType: "text/plain"))
            fixture.server.serve("/html.jpg", ServedRoute(body: Array("<html></html>".utf8), contentType: "text/html"))
            fixture.server.serve("/cut.jpg", ServedRoute(
                body: try TestImages.texture(width: 300, height: 300), contentType: "image/jpeg", fault: .truncate(afterBytes: 500)))
            for path in ["/missing.jpg", "/html.jpg", "/cut.jpg"] {
                weak var task: ImageTask?
                do {
                    let started = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url(path)))
                    task = started
                    await #expect(throws: MagpieError.self) { try await started.response }
                }
                try await Self.expectAllReleased(fixture.pipeline)
                #expect(task == nil, "\(path)")
            }
        }
    }

    @Test func memoryHits() async throws {
        try await Self.withTrackingFixture { fixture in
            fixture.server.serve("/m.png", .image(try TestImages.texture(width: 40, height: 30, format: .png)))
            let request = ImageRequest(url: fixture.server.url("/m.png"))
            _ = try await fixture.pipeline.image(for: request)
            // Through the task API, which finds the hit inside the load.
            weak var task: ImageTask?
            do {
                let started = fixture.pipeline.imageTask(with: request)
                task = started
                #expect(try await started.response.source == .memory)
            }
            // Through the fast path, which makes no task at all.
            #expect(try await fixture.pipeline.image(for: request).source == .memory)
            try await Self.expectAllReleased(fixture.pipeline)
            #expect(task == nil)
        }
    }

    @Test func loadThatJoinedAnother() async throws {
        try await Self.withTrackingFixture { fixture in
            let gate = Gate()
            fixture.server.serve("/j.jpg", .image(try TestImages.texture(width: 320, height: 240), gate: gate))
            let request = ImageRequest(url: fixture.server.url("/j.jpg"))
            weak var first: ImageTask?
            weak var second: ImageTask?
            do {
                let a = fixture.pipeline.imageTask(with: request)
                let b = fixture.pipeline.imageTask(with: ImageRequest(url: request.url, priority: .high))
                first = a
                second = b
                try await waitUntil { fixture.pipeline.statistics.coalesced >= 1 }
                gate.open()
                _ = try await a.response
                _ = try await b.response
            }
            #expect(fixture.server.statistics(for: "/j.jpg").requests == 1)
            try await Self.expectAllReleased(fixture.pipeline)
            #expect(first == nil && second == nil)
        }
    }

    @Test func progressiveLoadWithPreviews() async throws {
        try await Self.withTrackingFixture { fixture in
            let bytes = try TestImages.texture(width: 800, height: 600, format: .jpeg, progressive: true)
            fixture.server.serve("/p.jpg", ServedRoute(body: bytes, contentType: "image/jpeg", bytesPerSecond: bytes.count))
            weak var task: ImageTask?
            var previews = 0
            do {
                let request = ImageRequest(url: fixture.server.url("/p.jpg"), options: .progressivePreviews)
                let started = fixture.pipeline.imageTask(with: request)
                task = started
                for await event in started.events {
                    if case .preview = event { previews += 1 }
                }
                _ = try await started.response
            }
            #expect(previews > 0)
            try await Self.expectAllReleased(fixture.pipeline)
            #expect(task == nil)
        }
    }

    @Test func eventsNobodyReadsDoNotOutliveTheTask() async throws {
        try await Self.withTrackingFixture { fixture in
            let bytes = try TestImages.texture(width: 800, height: 600, format: .jpeg, progressive: true)
            fixture.server.serve("/p.jpg", ServedRoute(body: bytes, contentType: "image/jpeg", bytesPerSecond: bytes.count * 2))
            let request = ImageRequest(url: fixture.server.url("/p.jpg"), options: .progressivePreviews)
            // The buffered previews and the finished response are the task's alone.
            _ = try await fixture.pipeline.imageTask(with: request).response
            try await Self.expectAllReleased(fixture.pipeline)
        }
    }

    @Test @MainActor func bindThenRebind() async throws {
        try await Self.withTrackingFixture { fixture in
            let gate = Gate()
            fixture.server.serve("/old.png", .image(try TestImages.texture(width: 50, height: 50, format: .png), gate: gate))
            fixture.server.serve("/new.png", .image(try TestImages.texture(width: 60, height: 60, format: .png)))
            let view = RecordingView()
            weak var old: ImageTask?
            weak var new: ImageTask?
            let done = AsyncStream.makeStream(of: Void.self)
            old = fixture.pipeline.bind(fixture.server.url("/old.png"), to: view)
            #expect(old != nil)
            try await waitUntil { fixture.server.statistics(for: "/old.png").requests == 1 }
            new = fixture.pipeline.bind(
                fixture.server.url("/new.png"), to: view, options: .init(completion: { _ in done.continuation.yield() }))
            for await _ in done.stream { break }
            gate.open()
            #expect(view.shownWidths.last == 60)
            try await Self.expectAllReleased(fixture.pipeline)
            #expect(old == nil && new == nil)
        }
    }

    @Test @MainActor func targetDeallocatedWhileLoading() async throws {
        try await Self.withTrackingFixture { fixture in
            let gate = Gate()
            fixture.server.serve("/v.png", .image(try TestImages.texture(width: 50, height: 50, format: .png), gate: gate))
            weak var view: RecordingView?
            do {
                let shown = RecordingView()
                view = shown
                fixture.pipeline.bind(fixture.server.url("/v.png"), to: shown)
                try await waitUntil { fixture.server.statistics(for: "/v.png").requests == 1 }
            }
            gate.open()
            try await Self.expectAllReleased(fixture.pipeline)
            #expect(view == nil)
        }
    }

    @Test(arguments: [ImagePrefetcher.Destination.diskCache, .memoryCache])
    func prefetch(to destination: ImagePrefetcher.Destination) async throws {
        try await Self.withTrackingFixture { fixture in
            var urls: [URL] = []
            for index in 0..<6 {
                fixture.server.serve("/f\(index).jpg", .image(try TestImages.texture(width: 100 + index, height: 80, seed: UInt32(index))))
                urls.append(fixture.server.url("/f\(index).jpg"))
            }
            fixture.server.serve("/broken.jpg", ServedRoute(body: [], status: 500))
            urls.append(fixture.server.url("/broken.jpg"))
            weak var weakPrefetcher: ImagePrefetcher?
            do {
                let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline, destination: destination)
                weakPrefetcher = prefetcher
                prefetcher.start(urls)
                await prefetcher.wait()
                #expect(prefetcher.progress.completed == 6)
                #expect(prefetcher.progress.failed == 1)
            }
            try await Self.expectAllReleased(fixture.pipeline)
            #expect(weakPrefetcher == nil)
        }
    }

    @Test func stoppedPrefetch() async throws {
        try await Self.withTrackingFixture { fixture in
            let gate = Gate()
            let urls = (0..<4).map { fixture.server.url("/g\($0).jpg") }
            for index in 0..<4 {
                fixture.server.serve("/g\(index).jpg", .image(try TestImages.texture(width: 90, height: 90), gate: gate))
            }
            weak var weakPrefetcher: ImagePrefetcher?
            do {
                let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline)
                weakPrefetcher = prefetcher
                prefetcher.start(urls)
                try await waitUntil { fixture.server.totalRequests >= 1 }
                prefetcher.stop()
                await prefetcher.wait()
            }
            gate.open()
            try await Self.expectAllReleased(fixture.pipeline)
            #expect(weakPrefetcher == nil)
        }
    }

    @Test func observersAndEventStreamsLetGo() async throws {
        try await Self.withTrackingFixture { fixture in
            fixture.server.serve("/o.jpg", .image(try TestImages.texture(width: 64, height: 64)))
            final class Sentinel: Sendable {}
            weak var captured: Sentinel?
            var observation: PipelineObservation?
            do {
                let sentinel = Sentinel()
                captured = sentinel
                observation = fixture.pipeline.addObserver { _ in _ = sentinel }
            }
            let stream = fixture.pipeline.events()
            let reader = Task {
                for await event in stream {
                    if case .finished = event { return true }
                }
                return false
            }
            _ = try await fixture.pipeline.image(for: fixture.server.url("/o.jpg"))
            #expect(await reader.value)
            #expect(captured != nil)
            observation?.cancel()
            observation = nil
            #expect(captured == nil, "a cancelled observation drops its handler")
            try await Self.expectAllReleased(fixture.pipeline)
        }
    }

    @Test func pipelineIsReleasedAfterShutdown() async throws {
        weak var released: ImagePipeline?
        let server = try await ImageServer.start()
        server.serve("/s.jpg", .image(try TestImages.texture(width: 64, height: 64)))
        do {
            var configuration = ImagePipeline.Configuration()
            configuration.diskCache = nil
            let pipeline = ImagePipeline(configuration: configuration)
            released = pipeline
            _ = try await pipeline.image(for: server.url("/s.jpg"))
            await pipeline.shutdown()
        }
        await server.shutdown()
        let deadline = ContinuousClock.now + .seconds(5)
        while released != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(released == nil)
    }
}
