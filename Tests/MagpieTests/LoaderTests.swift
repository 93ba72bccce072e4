import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("HTTP loading: redirects, limits, timeouts, faults")
struct LoaderTests {
    static func png() throws -> [UInt8] { try TestImages.texture(width: 16, height: 16, format: .png) }

    @Test func followsUpToFiveRedirects() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/final.png", .image(try Self.png()))
            for hop in 1...5 { fixture.server.serve("/r\(hop)", .redirect(to: hop == 5 ? "/final.png" : "/r\(hop + 1)")) }
            #expect(try await fixture.pipeline.image(for: fixture.server.url("/r1")).width == 16)

            fixture.server.serve("/r0", .redirect(to: "/r1", status: 301))
            await #expect(throws: MagpieError.tooManyRedirects(fixture.server.url("/r0"))) {
                try await fixture.pipeline.image(for: fixture.server.url("/r0"))
            }
        }
    }

    @Test func redirectLoopFails() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/loop-a", .redirect(to: "/loop-b"))
            fixture.server.serve("/loop-b", .redirect(to: "/loop-a"))
            await #expect(throws: MagpieError.tooManyRedirects(fixture.server.url("/loop-a"))) {
                try await fixture.pipeline.image(for: fixture.server.url("/loop-a"))
            }
        }
    }

    @Test func credentialsAreNotSentToAnotherHost() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/moved.png", .image(try Self.png()))
            fixture.server.serve("/same-host", .redirect(to: "/moved.png"))
            // localhost is another host name for the same server.
            fixture.server.serve("/other-host", .redirect(to: "http://localhost:\(fixture.server.port)/moved.png"))
            let secret = ["Authorization": "Bearer secret", "Cookie": "session=1"]

            _ = try await fixture.pipeline.image(for: ImageRequest(url: fixture.server.url("/same-host"), headers: secret))
            #expect(fixture.server.statistics(for: "/moved.png").lastRequestHeaders["authorization"] == "Bearer secret")

            fixture.pipeline.memoryCache?.removeAll()
            _ = try await fixture.pipeline.image(
                for: ImageRequest(url: fixture.server.url("/other-host"), options: .networkOnly, headers: secret))
            let headers = fixture.server.statistics(for: "/moved.png").lastRequestHeaders
            #expect(headers["authorization"] == nil)
            #expect(headers["cookie"] == nil)
        }
    }

    @Test func redirectToAnotherSchemeIsRefused() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/to-file", .redirect(to: "file:///etc/passwd"))
            await #expect {
                try await fixture.pipeline.image(for: fixture.server.url("/to-file"))
            } throws: { error in
                guard case MagpieError.invalidURL = error else { return false }
                return true
            }
        }
    }

    // `data:` URLs are read since issue 35 (DataURLTests).
    @Test(arguments: ["ftp://example.com/a.png", "http:///nohost.png", "/relative.png"])
    func unsupportedURLsAreRefused(text: String) async throws {
        try await withTestFixture { fixture in
            let url = try #require(URL(string: text))
            await #expect {
                try await fixture.pipeline.image(for: url)
            } throws: { error in
                guard case MagpieError.invalidURL = error else { return false }
                return true
            }
        }
    }

    @Test func responsesOverTheLimitAreRefused() async throws {
        try await withTestFixture(configure: { $0.maximumResponseBytes = 10_000 }) { fixture in
            let big = try TestImages.texture(width: 200, height: 200, format: .png)
            #expect(big.count > 10_000)
            fixture.server.serve("/declared.png", .image(big))
            fixture.server.serve("/chunked.png", ServedRoute(body: big, contentType: "image/png", omitsContentLength: true))
            fixture.server.serve("/lying.png", ServedRoute(body: big, contentType: "image/png", fault: .declareLength(5_000)))
            for path in ["/declared.png", "/chunked.png"] {
                await #expect(throws: MagpieError.responseTooLarge(limit: 10_000)) {
                    try await fixture.pipeline.image(for: fixture.server.url(path))
                }
            }
            // A Content-Length smaller than the body: the client reads only what was declared,
            // which is not a whole image.
            await #expect(throws: MagpieError.self) { try await fixture.pipeline.image(for: fixture.server.url("/lying.png")) }
        }
    }

    @Test func truncatedAndResetBodiesFailAndAreNotCached() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 300, height: 300, format: .png)
            fixture.server.serve("/cut.png", ServedRoute(body: bytes, contentType: "image/png", fault: .truncate(afterBytes: bytes.count / 2)))
            fixture.server.serve("/reset.png", ServedRoute(body: bytes, contentType: "image/png", fault: .reset(afterBytes: bytes.count / 2)))
            for path in ["/cut.png", "/reset.png"] {
                let url = fixture.server.url(path)
                await #expect {
                    try await fixture.pipeline.image(for: url)
                } throws: { error in
                    guard case MagpieError.network = error else { return false }
                    return true
                }
                await fixture.pipeline.dataCache?.flush()
                #expect(await fixture.pipeline.dataCache?.entry(for: url.absoluteString) == nil)
                #expect(fixture.server.statistics(for: path).faultsInjected == 1)
            }
            // Network failures are transient: the next try goes out again.
            fixture.server.update("/cut.png") { $0.fault = nil }
            #expect(try await fixture.pipeline.image(for: fixture.server.url("/cut.png")).width == 300)
        }
    }

    @Test func slowHeadersHitTheIdleTimeout() async throws {
        try await withTestFixture(configure: { $0.idleTimeout = .milliseconds(300) }) { fixture in
            fixture.server.serve("/late.png", ServedRoute(body: try Self.png(), contentType: "image/png", latency: .seconds(3)))
            let url = fixture.server.url("/late.png")
            await #expect(throws: MagpieError.timedOut(url)) { try await fixture.pipeline.image(for: url) }
        }
    }

    @Test func slowBodyHitsTheTotalTimeout() async throws {
        try await withTestFixture(configure: { $0.totalTimeout = .milliseconds(500) }) { fixture in
            let bytes = try TestImages.texture(width: 200, height: 200, format: .png)
            // Steady progress (so no idle timeout), but it would take about 4 s in all.
            fixture.server.serve("/trickle.png", ServedRoute(body: bytes, contentType: "image/png", bytesPerSecond: bytes.count / 4))
            let url = fixture.server.url("/trickle.png")
            await #expect(throws: MagpieError.timedOut(url)) { try await fixture.pipeline.image(for: url) }
            #expect(fixture.pipeline.inFlightTaskCount == 0)
        }
    }

    @Test func wrongContentTypeStillDecodesRealImages() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/typed.bin", ServedRoute(body: try Self.png(), contentType: "text/plain"))
            #expect(try await fixture.pipeline.image(for: fixture.server.url("/typed.bin")).width == 16)
        }
    }
}
