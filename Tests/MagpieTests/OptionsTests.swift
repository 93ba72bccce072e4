import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("Request options and pipeline hooks")
struct OptionsTests {
    @Test func refreshCachedRevalidatesAndA304ServesTheCachedBytes() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 32, height: 32, format: .png)
            fixture.server.serve(
                "/r.png",
                ServedRoute(body: bytes, contentType: "image/png", headers: ["Cache-Control": "max-age=60"], etag: "\"v1\""))
            let url = fixture.server.url("/r.png")
            _ = try await fixture.pipeline.image(for: url)
            await fixture.pipeline.dataCache?.flush()
            let stored = try #require(await fixture.pipeline.dataCache?.entry(for: url.absoluteString))

            fixture.server.update("/r.png") { $0.headers["Cache-Control"] = "max-age=3600" }
            fixture.clock.advance(by: .seconds(120))
            let refreshed = try await fixture.pipeline.image(for: ImageRequest(url: url, options: .refreshCached))
            #expect(refreshed.source == .network)
            #expect(refreshed.image.width == 32)
            let statistics = fixture.server.statistics(for: "/r.png")
            #expect(statistics.requests == 2)
            #expect(statistics.notModified == 1)
            #expect(statistics.lastRequestHeaders["if-none-match"] == "\"v1\"")
            #expect(fixture.pipeline.statistics.revalidated == 1)

            await fixture.pipeline.dataCache?.flush()
            let updated = try #require(await fixture.pipeline.dataCache?.entry(for: url.absoluteString))
            #expect(updated.data == stored.data)
            #expect(updated.metadata.freshUntil! > stored.metadata.freshUntil!.addingTimeInterval(3000))
        }
    }

    @Test func refreshCachedWithLastModified() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 8, height: 8, format: .png)
            let stamp = "Sun, 22 Nov 2026 10:00:00 GMT"
            fixture.server.serve("/lm.png", ServedRoute(body: bytes, contentType: "image/png", lastModified: stamp))
            let url = fixture.server.url("/lm.png")
            _ = try await fixture.pipeline.image(for: url)
            await fixture.pipeline.dataCache?.flush()
            _ = try await fixture.pipeline.image(for: ImageRequest(url: url, options: .refreshCached))
            #expect(fixture.server.statistics(for: "/lm.png").lastRequestHeaders["if-modified-since"] == stamp)
            #expect(fixture.server.statistics(for: "/lm.png").notModified == 1)
        }
    }

    @Test func memoryCacheOnlyWritesNothingToDisk() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/m.png", .image(try TestImages.texture(width: 8, height: 8, format: .png)))
            let url = fixture.server.url("/m.png")
            _ = try await fixture.pipeline.image(for: ImageRequest(url: url, options: .memoryCacheOnly))
            await fixture.pipeline.dataCache?.flush()
            #expect(await fixture.pipeline.dataCache?.entry(for: url.absoluteString) == nil)
            #expect(fixture.pipeline.cachedImage(for: ImageRequest(url: url)) != nil)
        }
    }

    @Test func cacheOnlyNeverTouchesTheNetwork() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/co.png", .image(try TestImages.texture(width: 8, height: 8, format: .png)))
            let request = ImageRequest(url: fixture.server.url("/co.png"), options: .cacheOnly)
            await #expect(throws: MagpieError.notCached) { try await fixture.pipeline.image(for: request) }
            #expect(fixture.server.statistics(for: "/co.png").requests == 0)
            _ = try await fixture.pipeline.image(for: ImageRequest(url: request.url))
            fixture.pipeline.memoryCache?.removeAll()
            #expect(try await fixture.pipeline.image(for: request).source == .disk)
        }
    }

    @Test func networkOnlyIgnoresBothCaches() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/n.png", .image(try TestImages.texture(width: 8, height: 8, format: .png)))
            let url = fixture.server.url("/n.png")
            _ = try await fixture.pipeline.image(for: url)
            let again = try await fixture.pipeline.image(for: ImageRequest(url: url, options: .networkOnly))
            #expect(again.source == .network)
            #expect(fixture.server.statistics(for: "/n.png").requests == 2)
        }
    }

    @Test func dataOnlyLoadsBytesWithoutDecoding() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 8, height: 8, format: .png)
            fixture.server.serve("/raw.png", .image(bytes))
            let response = try await fixture.pipeline.data(for: ImageRequest(url: fixture.server.url("/raw.png")))
            #expect(response.data == bytes)
            #expect(response.contentType == "image/png")
            #expect(fixture.pipeline.statistics.decodes == 0)
            await fixture.pipeline.dataCache?.flush()
            let again = try await fixture.pipeline.data(for: ImageRequest(url: fixture.server.url("/raw.png")))
            #expect(again.source == .disk)
        }
    }

    @Test func headersModifierAndCacheKeyFilter() async throws {
        try await withTestFixture(configure: { configuration in
            configuration.requestModifier = { request in request.headers["Authorization"] = "Bearer secret" }
            configuration.cacheKey = { url in
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
                components.queryItems = components.queryItems?.filter { $0.name != "token" }
                if components.queryItems?.isEmpty == true { components.queryItems = nil }
                return components.url!.absoluteString
            }
        }) { fixture in
            fixture.server.serve("/auth.png", .image(try TestImages.texture(width: 8, height: 8, format: .png)))
            let first = URL(string: fixture.server.url("/auth.png").absoluteString + "?token=one")!
            let second = URL(string: fixture.server.url("/auth.png").absoluteString + "?token=two")!
            _ = try await fixture.pipeline.image(for: ImageRequest(url: first, headers: ["X-Client": "magpie-tests"]))
            let headers = fixture.server.statistics(for: "/auth.png").lastRequestHeaders
            #expect(headers["authorization"] == "Bearer secret")
            #expect(headers["x-client"] == "magpie-tests")
            let again = try await fixture.pipeline.image(for: ImageRequest(url: second))
            #expect(again.source == .memory)
            #expect(fixture.server.statistics(for: "/auth.png").requests == 1)
        }
    }

    @Test func thumbnailsAreCachedPerSize() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/t.jpg", .image(try TestImages.texture(width: 640, height: 480)))
            let url = fixture.server.url("/t.jpg")
            let fill = try await fixture.pipeline.image(
                for: ImageRequest(url: url, thumbnail: .init(width: 100, height: 100, fit: .fill)))
            #expect(fill.image.width == 100 && fill.image.height == 100)
            let fit = try await fixture.pipeline.image(for: ImageRequest(url: url, thumbnail: .init(width: 100, height: 100)))
            #expect(fit.image.width == 100 && fit.image.height == 75)
            #expect(fit.source == .disk)
            #expect(fit.image.sourceWidth == 640)
        }
    }
}
