import Foundation
import Magpie
import MagpieTesting
import NIOConcurrencyHelpers
import Testing

@Suite("Prefetching")
@MainActor
struct PrefetcherTests {
    static func serveGallery(_ fixture: TestFixture, count: Int) throws -> [URL] {
        let bytes = try TestImages.texture(width: 32, height: 24)
        return (0..<count).map { index in
            fixture.server.serve("/g\(index).jpg", .image(bytes))
            return fixture.server.url("/g\(index).jpg")
        }
    }

    @Test func prefetchedImagesAreServedFromTheCache() async throws {
        try await withTestFixture { fixture in
            let urls = try Self.serveGallery(fixture, count: 200)
            let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline)
            prefetcher.start(urls)
            await prefetcher.wait()
            #expect(prefetcher.progress == {
                var expected = ImagePrefetcher.Progress()
                expected.completed = 200
                expected.total = 200
                return expected
            }())
            #expect(fixture.pipeline.statistics.decodes == 0, "disk prefetching does not decode")
            let requestsBefore = fixture.server.totalRequests
            #expect(requestsBefore == 200)

            var views: [RecordingView] = []
            for url in urls.prefix(12) {
                let view = RecordingView()
                views.append(view)
                let done = AsyncStream.makeStream(of: ImageSource.self)
                fixture.pipeline.bind(url, to: view, options: .init(completion: { result in
                    done.continuation.yield((try? result.get().source) ?? .network)
                }))
                for await source in done.stream {
                    #expect(source == .disk)
                    break
                }
            }
            #expect(fixture.server.totalRequests == requestsBefore)
            #expect(views.allSatisfy { $0.shownWidths.last == 32 })

            // A second pass skips everything.
            prefetcher.start(urls)
            await prefetcher.wait()
            #expect(prefetcher.progress.skipped == 200)
            #expect(fixture.server.totalRequests == requestsBefore)
        }
    }

    @Test func memoryDestinationDecodes() async throws {
        try await withTestFixture { fixture in
            let urls = try Self.serveGallery(fixture, count: 5)
            let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline, destination: .memoryCache)
            prefetcher.start(urls)
            await prefetcher.wait()
            for url in urls { #expect(fixture.pipeline.cachedImage(for: ImageRequest(url: url)) != nil) }
        }
    }

    @Test func aVisibleRequestStartsBeforeRemainingPrefetches() async throws {
        try await withTestFixture(configure: { $0.maximumConcurrentDownloads = 1 }) { fixture in
            let urls = try Self.serveGallery(fixture, count: 10)
            // Every gallery image waits at the gate: the prefetcher's concurrent runs reach the
            // download queue in no fixed order, so whichever of them takes the only slot holds it.
            let gate = Gate()
            let galleryBytes = try TestImages.texture(width: 32, height: 24)
            for index in urls.indices {
                fixture.server.serve("/g\(index).jpg", .image(galleryBytes, gate: gate))
            }
            fixture.server.serve("/visible.jpg", .image(try TestImages.texture(width: 40, height: 30)))
            let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline)
            prefetcher.start(urls)
            try await waitUntil { fixture.server.totalRequests == 1 }
            let view = RecordingView()
            let task = fixture.pipeline.bind(fixture.server.url("/visible.jpg"), to: view)
            try await waitUntil { fixture.pipeline.downloadQueue.waiting == 2 }
            gate.open()
            _ = try await task?.response
            await prefetcher.wait()
            let log = fixture.server.requestLog
            #expect(log.count == 11)
            #expect(log.first?.hasPrefix("/g") == true)
            #expect(log.dropFirst().first == "/visible.jpg", "the visible image overtakes the prefetches still waiting")
        }
    }

    @Test func stopCancelsOutstandingDownloads() async throws {
        try await withTestFixture { fixture in
            let urls = try Self.serveGallery(fixture, count: 20)
            let gate = Gate()
            for index in 0..<20 {
                fixture.server.serve("/g\(index).jpg", .image(try TestImages.texture(width: 32, height: 24), gate: gate))
            }
            let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline, maximumConcurrent: 2)
            prefetcher.start(urls)
            try await waitUntil { fixture.server.totalRequests == 2 }
            prefetcher.stop()
            await prefetcher.wait()
            try await waitUntil { fixture.pipeline.inFlightTaskCount == 0 }
            gate.open()
            #expect(fixture.server.totalRequests == 2, "bounded concurrency: only two ever started")
            #expect(prefetcher.progress == ImagePrefetcher.Progress())
        }
    }

    @Test func eachURLIsReportedWithItsOutcome() async throws {
        try await withTestFixture { fixture in
            let urls = try Self.serveGallery(fixture, count: 2)
            let missing = fixture.server.url("/missing.jpg")
            fixture.server.serve("/page.html", .image(Array("<html>hello</html>".utf8), contentType: "text/html"))
            let page = fixture.server.url("/page.html")
            let updates = NIOLockedValueBox<[URL: ImagePrefetcher.Outcome]>([:])
            let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline) { update in
                updates.withLockedValue { $0[update.url] = update.outcome }
            }
            prefetcher.start([urls[0]])
            await prefetcher.wait()
            prefetcher.start(urls + [missing, page])
            await prefetcher.wait()
            let reported = updates.withLockedValue { $0 }
            #expect(reported.count == 4)
            if case .skipped? = reported[urls[0]] {} else { Issue.record("first URL: \(String(describing: reported[urls[0]]))") }
            if case .completed? = reported[urls[1]] {} else { Issue.record("second URL: \(String(describing: reported[urls[1]]))") }
            if case .failed(.httpStatus(404, _))? = reported[missing] {} else {
                Issue.record("missing URL: \(String(describing: reported[missing]))")
            }
            if case .failed(.unsupportedFormat)? = reported[page] {} else {
                Issue.record("a page that is not an image warms nothing: \(String(describing: reported[page]))")
            }
            #expect(prefetcher.progress.failed == 2 && prefetcher.progress.total == 5)
        }
    }
}
