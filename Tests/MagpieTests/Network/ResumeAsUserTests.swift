import Foundation
import Magpie
import MagpieTesting
import Testing

/// Resuming as a user meets it, through the public interface only: the default configuration
/// with a disk cache, and an origin that sends a strong `ETag`, `Accept-Ranges: bytes` and
/// `Content-Length`, answers ranges with 206, and closes the first connection part-way at once
/// (no test gate holding the close until the client has read everything).
@Suite("Resuming as a user meets it")
struct ResumeAsUserTests {
    @Test func theNextLoadAsksOnlyForTheRest() async throws {
        let photo = try TestImages.texture(width: 680, height: 520, format: .jpeg)
        let cut = 70_000
        try #require(photo.count > cut + 10_000)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-resume-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = DataCache.Configuration(directory: directory)
        let pipeline = ImagePipeline(configuration: configuration)
        let server = try await ImageServer.start()
        var route = ServedRoute.image(photo)
        route.etag = "\"v1\""
        route.acceptsRanges = true
        route.fault = .truncate(afterBytes: cut)
        server.serve("/photo.jpg", route)
        let url = server.url("/photo.jpg")

        await #expect(throws: MagpieError.self) { try await pipeline.image(for: url) }
        server.update("/photo.jpg") { $0.fault = nil }
        let image = try await pipeline.image(for: url)

        #expect((image.width, image.height) == (680, 520))
        let statistics = server.statistics(for: "/photo.jpg")
        #expect(statistics.requests == 2)
        #expect(statistics.lastRequestHeaders["range"] == "bytes=\(cut)-")
        #expect(statistics.lastRequestHeaders["if-range"] == "\"v1\"")
        #expect(statistics.partialResponses == 1)
        // Every byte the origin sent was used: the first 70,000 once, the rest once.
        #expect(statistics.bytesSent == photo.count)
        #expect(pipeline.statistics.resumedDownloads == 1)
        let cache = try #require(pipeline.dataCache)
        await cache.flush()
        #expect(await cache.entry(for: url.absoluteString)?.data == photo, "the whole file is what was stored")
        await pipeline.shutdown()
        await server.shutdown()
    }
}
