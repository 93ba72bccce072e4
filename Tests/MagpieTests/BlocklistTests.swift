import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("Failed-URL blocklist")
struct BlocklistTests {
    @Test func notFoundIsBlockedForFiveMinutes() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/gone.png", .status(404))
            let url = fixture.server.url("/gone.png")
            await #expect(throws: MagpieError.httpStatus(404, url)) { try await fixture.pipeline.image(for: url) }
            await #expect(throws: MagpieError.blocked(url)) { try await fixture.pipeline.image(for: url) }
            #expect(fixture.server.statistics(for: "/gone.png").requests == 1)

            // retryFailed bypasses the blocklist.
            fixture.server.serve("/gone.png", .image(try TestImages.texture(width: 4, height: 4, format: .png)))
            fixture.server.serve("/gone.png", .status(404))
            await #expect(throws: MagpieError.httpStatus(404, url)) {
                try await fixture.pipeline.image(for: ImageRequest(url: url, options: .retryFailed))
            }
            #expect(fixture.server.statistics(for: "/gone.png").requests == 2)

            fixture.clock.advance(by: .seconds(299))
            await #expect(throws: MagpieError.blocked(url)) { try await fixture.pipeline.image(for: url) }
            fixture.clock.advance(by: .seconds(2))
            fixture.server.serve("/gone.png", .image(try TestImages.texture(width: 4, height: 4, format: .png)))
            #expect(try await fixture.pipeline.image(for: url).width == 4)
        }
    }

    @Test(arguments: [408, 429, 500, 503])
    func transientStatusesAreNotBlocked(status: Int) async throws {
        try await withTestFixture { fixture in
            // 429 and 503 with Retry-After are blocked for the time asked (NetworkFaultTests);
            // without it, or on other statuses, the next load asks again.
            let headers = [429, 503].contains(status) ? [:] : ["Retry-After": "1"]
            fixture.server.serve("/flaky.png", .status(status, headers: headers))
            let url = fixture.server.url("/flaky.png")
            for _ in 0..<2 {
                await #expect(throws: MagpieError.httpStatus(status, url)) { try await fixture.pipeline.image(for: url) }
            }
            #expect(fixture.server.statistics(for: "/flaky.png").requests == 2)
        }
    }

    @Test func notAnImageIsBlocked() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/page.png", ServedRoute(body: Array("<html>oops</html>".utf8), contentType: "text/html"))
            let url = fixture.server.url("/page.png")
            await #expect {
                try await fixture.pipeline.image(for: url)
            } throws: { error in
                guard case MagpieError.unsupportedFormat = error else { return false }
                return true
            }
            await #expect(throws: MagpieError.blocked(url)) { try await fixture.pipeline.image(for: url) }
            // An HTML page served as 200 is never cached.
            #expect(await fixture.pipeline.dataCache?.entry(for: url.absoluteString) == nil)
        }
    }

    @Test func cancellationIsNotBlocked() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 64, height: 64, format: .png)
            fixture.server.serve("/slow.png", ServedRoute(body: bytes, contentType: "image/png", latency: .milliseconds(300)))
            let task = fixture.pipeline.imageTask(with: ImageRequest(url: fixture.server.url("/slow.png")))
            task.cancel()
            await #expect(throws: MagpieError.cancelled) { try await task.response }
            fixture.server.update("/slow.png") { $0.latency = .zero }
            #expect(try await fixture.pipeline.image(for: fixture.server.url("/slow.png")).width == 64)
        }
    }
}

@Suite("Undecodable cached bytes")
struct UndecodableCacheTests {
    @Test func aDiskEntryThatFailsToDecodeIsRemoved() async throws {
        try await withTestFixture { fixture in
            // Bytes that look like a PNG (so they are cached) but are not one.
            let fake = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 64)
            fixture.server.serve("/fake.png", ServedRoute(body: fake, contentType: "image/png"))
            let url = fixture.server.url("/fake.png")
            await #expect(throws: MagpieError.self) { try await fixture.pipeline.image(for: url) }
            await fixture.pipeline.dataCache?.flush()
            #expect(await fixture.pipeline.dataCache?.entry(for: url.absoluteString) == nil)
            // The same holds for bytes that were already on disk.
            fixture.pipeline.dataCache?.store(CachedData(key: url.absoluteString, data: fake, metadata: HTTPMetadata()))
            await #expect(throws: MagpieError.self) {
                try await fixture.pipeline.image(for: ImageRequest(url: url, options: .retryFailed))
            }
            #expect(fixture.server.statistics(for: "/fake.png").requests == 1, "the second load read the disk")
            #expect(await fixture.pipeline.dataCache?.entry(for: url.absoluteString) == nil)
        }
    }
}
