import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("Loading through memory, disk and network")
struct LoadingTests {
    @Test func loadsFromNetworkThenMemoryThenDisk() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 64, height: 48, format: .png)
            fixture.server.serve("/a.png", .image(bytes))
            let request = ImageRequest(url: fixture.server.url("/a.png"))

            let first = try await fixture.pipeline.image(for: request)
            #expect(first.source == .network)
            #expect(first.image.width == 64 && first.image.height == 48)
            #expect(first.image.bytesPerRow == 256)
            #expect(first.image.sourceFormat == .png)

            let second = try await fixture.pipeline.image(for: request)
            #expect(second.source == .memory)

            fixture.pipeline.memoryCache?.removeAll()
            let third = try await fixture.pipeline.image(for: request)
            #expect(third.source == .disk)
            #expect(third.image.pixels == first.image.pixels)
            #expect(fixture.server.statistics(for: "/a.png").requests == 1)
        }
    }

    @Test func synchronousLookupSeesOnlyMemory() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/b.jpg", .image(try TestImages.texture(width: 40, height: 30)))
            let request = ImageRequest(url: fixture.server.url("/b.jpg"))
            #expect(fixture.pipeline.cachedImage(for: request) == nil)
            _ = try await fixture.pipeline.image(for: request)
            let cached = try #require(fixture.pipeline.cachedImage(for: request))
            #expect(cached.width == 40)
            var thumbnail = request
            thumbnail.thumbnail = .init(width: 10, height: 10)
            #expect(fixture.pipeline.cachedImage(for: thumbnail) == nil)
        }
    }

    @Test func completionHandlerDeliversOnce() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/c.png", .image(try TestImages.texture(width: 8, height: 8, format: .png)))
            let result = await withCheckedContinuation { continuation in
                fixture.pipeline.loadImage(with: ImageRequest(url: fixture.server.url("/c.png"))) { result in
                    continuation.resume(returning: result)
                }
            }
            #expect(try result.get().image.width == 8)
        }
    }

    @Test func eventsArriveInOrder() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 300, height: 200, format: .png)
            fixture.server.serve("/d.png", ServedRoute(body: bytes, contentType: "image/png", bytesPerSecond: bytes.count * 4))
            let task = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/d.png")))
            var names: [String] = []
            var lastReceived = -1
            var expectedTotal: Int?
            for await event in task.events {
                switch event {
                case .started: names.append("started")
                case .response(let status, _):
                    #expect(status == 200)
                    names.append("response")
                case .progress(let received, let expected):
                    #expect(received >= lastReceived)
                    lastReceived = received
                    expectedTotal = expected
                    if names.last != "progress" { names.append("progress") }
                case .preview:
                    Issue.record("no previews were asked for")
                case .finished(let result):
                    #expect((try? result.get())?.image.width == 300)
                    names.append("finished")
                }
            }
            #expect(names == ["started", "response", "progress", "finished"])
            #expect(lastReceived == bytes.count)
            #expect(expectedTotal == bytes.count)
            _ = try await task.response
        }
    }

    @Test func progressiveJPEGsSendPreviewsBeforeTheImage() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 800, height: 600, format: .jpeg, progressive: true)
            // Slow enough that each quarter of the body arrives well apart.
            fixture.server.serve("/p.jpg", ServedRoute(body: bytes, contentType: "image/jpeg", bytesPerSecond: bytes.count))
            let request = ImageRequest(url: fixture.server.url("/p.jpg"), thumbnail: .init(width: 200, height: 200), options: .progressivePreviews)
            let task = fixture.pipeline.imageTask(with: request)
            var previews: [DecodedImage] = []
            var finishedAfterPreviews = false
            for await event in task.events {
                switch event {
                case .preview(let image): previews.append(image)
                case .finished(let result):
                    finishedAfterPreviews = !previews.isEmpty
                    #expect((try? result.get())?.image.width == 200)
                default: break
                }
            }
            #expect(finishedAfterPreviews)
            for preview in previews { #expect(preview.width == 200 && preview.height == 150) }
            // A preview is never cached or mistaken for the image.
            #expect(try await fixture.pipeline.image(for: request).source == .memory)
        }
    }

    @Test func fileURLsNeedPermission() async throws {
        let entry = try #require(Corpus.entries.first { $0.path.hasSuffix(".png") && $0.expected == "valid" })
        try await withTestFixture { fixture in
            await #expect(throws: MagpieError.self) { try await fixture.pipeline.image(for: entry.url) }
        }
        try await withTestFixture(configure: { $0.allowsFileURLs = true }) { fixture in
            let image = try await fixture.pipeline.image(for: entry.url)
            #expect(image.width > 0)
        }
    }
}
