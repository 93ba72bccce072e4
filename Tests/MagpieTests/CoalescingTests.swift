import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("Identical work is done once")
struct CoalescingTests {
    @Test func hundredConcurrentRequestsCauseOneDownloadAndOneDecode() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 400, height: 300)
            // Latency keeps the download in flight while all requests arrive.
            fixture.server.serve("/one.jpg", ServedRoute(body: bytes, contentType: "image/jpeg", latency: .milliseconds(300)))
            let url = fixture.server.url("/one.jpg")
            let sources = try await withThrowingTaskGroup(of: ImageSource.self) { group in
                for _ in 0..<100 {
                    group.addTask { try await fixture.pipeline.image(for: ImageRequest(url: url)).source }
                }
                return try await group.reduce(into: [ImageSource]()) { $0.append($1) }
            }
            #expect(sources.count == 100)
            #expect(fixture.server.statistics(for: "/one.jpg").requests == 1)
            let statistics = fixture.pipeline.statistics
            #expect(statistics.decodes == 1)
            #expect(statistics.downloads == 1)
            #expect(statistics.coalesced + statistics.memoryHits == 99)
        }
    }

    @Test func thumbnailSizesShareTheDownload() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 800, height: 600)
            fixture.server.serve("/big.jpg", ServedRoute(body: bytes, contentType: "image/jpeg", latency: .milliseconds(200)))
            let url = fixture.server.url("/big.jpg")
            async let small = fixture.pipeline.image(for: ImageRequest(url: url, thumbnail: .init(width: 64, height: 64)))
            async let medium = fixture.pipeline.image(for: ImageRequest(url: url, thumbnail: .init(width: 200, height: 200)))
            async let full = fixture.pipeline.image(for: ImageRequest(url: url))
            let (a, b, c) = try await (small, medium, full)
            #expect(a.image.width == 64 && a.image.height == 48)
            #expect(b.image.width == 200 && b.image.height == 150)
            #expect(c.image.width == 800 && c.image.height == 600)
            #expect(fixture.server.statistics(for: "/big.jpg").requests == 1)
            #expect(fixture.pipeline.statistics.decodes == 3)
        }
    }

    @Test func inFlightCountReturnsToZero() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/z.png", .image(try TestImages.texture(width: 20, height: 20, format: .png)))
            _ = try await fixture.pipeline.image(for: fixture.server.url("/z.png"))
            #expect(fixture.pipeline.inFlightTaskCount == 0)
        }
    }
}
