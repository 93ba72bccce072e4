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
            fixture.server.serve("/flaky.png", .status(status, headers: ["Retry-After": "1"]))
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
