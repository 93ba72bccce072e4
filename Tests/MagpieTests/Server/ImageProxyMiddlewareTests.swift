import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// The proxy mounted under `/images` of an application with its own request context, in a
/// Hummingbird application of the application's own (issue 33): it answers as the proxy alone.
@Suite("Proxy mounted in an application")
struct ImageProxyMiddlewareTests {
    static let photo = ProxyServingTests.photo

    @Test(arguments: [true, false])
    func answersUnderItsPathAsTheProxyAloneDoes(keepsChannel: Bool) async throws {
        let alone = try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            return try await fixture.get(fixture.path("/a.jpg", "rs:fill:64:48/f:webp"))
        }
        try await withProxyFixture(mount: .middleware(base: "/images", keepsChannel: keepsChannel)) { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let path = fixture.path("/a.jpg", "rs:fill:64:48/f:webp")
            #expect(path.hasPrefix("/images/"))
            let mounted = try await fixture.get(path)
            #expect(mounted.status == 200)
            #expect(mounted.body == alone.body, "the same image")
            let names = { (reply: ProxyFixture.Reply) in Set(reply.headers.map { $0.name.lowercased() }).subtracting(["date", "x-request-id"]) }
            #expect(names(mounted) == names(alone))
            for name in ["Content-Type", "Cache-Control", "X-Content-Type-Options", "Vary"] {
                #expect(mounted.header(name) == alone.header(name), "\(name)")
            }
            #expect(mounted.header("ETag") != nil, "made from the source's URL, whose origin port differs here")

            // The application's own routes, and paths that are not under /images, are the application's.
            let page = try await fixture.get("/")
            #expect(page.status == 200 && page.text == "the application's own page\n")
            let unmounted = String(path.dropFirst("/images".count))
            #expect(try await fixture.get(unmounted).status == 404)
            #expect(try await fixture.get("/imagesque" + unmounted).status == 404)

            // The proxy's own endpoints and errors, under its path.
            let health = try await fixture.get("/images/health")
            #expect(health.status == 200 && health.text.hasPrefix("ok, libvips "), "\(health.text)")
            #expect(try await fixture.metric("magpie_proxy_requests_total{status=\"200\"}") == 1)
            let unsigned = try await fixture.get("/images/unsafe/rs:fill:64:48/plain/" + fixture.origin.url("/a.jpg").absoluteString)
            #expect(unsigned.status == 403 && unsigned.header("Cache-Control") == "no-store")
            #expect(try await fixture.metric("magpie_proxy_requests_total{status=\"403\"}") == 1)
        }
    }

    /// As ``ProxyLoadTests/clientThatLeavesStopsTheWorkUnlessAnotherWaits()``, in an application
    /// whose server installed no watch on its connections: the middleware adds one.
    @Test func aClientThatLeavesStopsItsWork() async throws {
        try await withProxyFixture(mount: .middleware(base: "/images", keepsChannel: true)) { fixture in
            var slow = ServedRoute.image(Self.photo)
            slow.bytesPerSecond = 20_000
            fixture.origin.serve("/slow.jpg", slow)
            let leaving = try await RawClient.connect(port: fixture.port)
            try await leaving.send("GET \(fixture.path("/slow.jpg", "s:100")) HTTP/1.1\r\nHost: app\r\n\r\n")
            try await waitUntil { fixture.origin.statistics(for: "/slow.jpg").bytesSent > 0 }
            try await leaving.close()
            try await waitUntil { fixture.origin.statistics(for: "/slow.jpg").connectionsClosedEarly == 1 }
            try await waitUntil { fixture.proxy.pipeline.statistics.cancelled == 1 }
            #expect(try await fixture.metric("magpie_proxy_requests_total{status=\"499\"}", reaching: 1) == 1)
        }
    }
}
