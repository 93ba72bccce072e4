import Foundation
@testable import Magpie
import MagpieTesting
import Testing

/// Every test runs on the pipeline's default stores and on stores injected through the
/// configuration (``CacheStores``): the behaviour belongs to the pipeline, not to the files.
@Suite("Processed variants on disk")
struct DiskVariantTests {
    static let avatar: [any ImageProcessing] = [.resize(width: 64, height: 64, fit: .fill), .roundedCorners(radius: 16)]

    /// A second pipeline on the first one's disk cache, as after a restart.
    static func restarted(_ fixture: TestFixture, _ body: (ImagePipeline) async throws -> Void) async throws {
        await fixture.pipeline.dataCache?.flush()
        var configuration = fixture.pipeline.configuration
        // A restart keeps what was stored, not what was in memory.
        configuration.imageCache = nil
        try await withImagePipeline(configuration: configuration) { try await body($0) }
    }

    @Test(arguments: CacheStores.allCases)
    func aVariantIsFoundWithoutTheOriginalAndKeepsItsTransparency(stores: CacheStores) async throws {
        try await withTestFixture(configure: { stores.apply(to: &$0); $0.diskCachePolicy = .variants }) { fixture in
            fixture.server.serve("/a.jpg", .image(try TestImages.texture(width: 640, height: 480, format: .jpeg)))
            let url = fixture.server.url("/a.jpg")
            let probe = CountingProcessor("test.probe")
            let request = ImageRequest(url: url, processors: Self.avatar + [probe])
            let first = try await fixture.pipeline.image(for: request)
            #expect(first.source == .network)
            #expect(fixture.pipeline.statistics.variantsStored == 1)
            await fixture.pipeline.dataCache?.flush()
            #expect(await fixture.pipeline.dataCache?.containsEntry(for: url.absoluteString) == false, "the variants policy keeps no original")

            try await Self.restarted(fixture) { pipeline in
                let again = try await pipeline.image(for: request)
                #expect(again.source == .disk)
                #expect(again.image.width == 64 && again.image.height == 64)
                #expect(again.image.pixel(x: 0, y: 0).alpha == 0, "a transparent corner survives the disk")
                #expect(again.image.pixel(x: 32, y: 32).alpha == 255)
                #expect(probe.runs == 1, "the processors ran for the first load only")
                #expect(pipeline.statistics.diskHits == 1)
            }
            #expect(fixture.server.statistics(for: "/a.jpg").requests == 1)
            let stored = await fixture.pipeline.dataCache?.variantEntry(for: url.absoluteString, variant: try Self.variantName(request))
            #expect(stored.map { ImageFormat(sniffing: $0.data) } == .png)
        }
    }

    @Test(arguments: CacheStores.allCases)
    func anOpaqueVariantIsStoredAsJPEG(stores: CacheStores) async throws {
        try await withTestFixture(configure: { stores.apply(to: &$0); $0.diskCachePolicy = .originalsAndVariants }) { fixture in
            fixture.server.serve("/o.png", .image(try TestImages.texture(width: 300, height: 200, format: .png)))
            let url = fixture.server.url("/o.png")
            let request = ImageRequest(url: url, processors: [.resize(width: 30, height: 30)])
            _ = try await fixture.pipeline.image(for: request)
            await fixture.pipeline.dataCache?.flush()
            let stored = await fixture.pipeline.dataCache?.variantEntry(for: url.absoluteString, variant: try Self.variantName(request))
            #expect(stored.map { ImageFormat(sniffing: $0.data) } == .jpeg)
            #expect(await fixture.pipeline.dataCache?.containsEntry(for: url.absoluteString) == true, "both are kept")
            #expect(await fixture.pipeline.dataCache?.variantCount == 1)
        }
    }

    @Test(arguments: CacheStores.allCases)
    func theDefaultPolicyKeepsOriginalsOnly(stores: CacheStores) async throws {
        try await withTestFixture(configure: { stores.apply(to: &$0) }) { fixture in
            fixture.server.serve("/d.png", .image(try TestImages.texture(width: 100, height: 100, format: .png)))
            _ = try await fixture.pipeline.image(for: ImageRequest(url: fixture.server.url("/d.png"), processors: [.blur(sigma: 1)]))
            await fixture.pipeline.dataCache?.flush()
            #expect(await fixture.pipeline.dataCache?.variantCount == 0)
            #expect(await fixture.pipeline.dataCache?.count == 1)
            // A request can ask for variants on its own.
            var request = ImageRequest(url: fixture.server.url("/d.png"), processors: [.blur(sigma: 2)])
            request.diskCachePolicy = .variants
            _ = try await fixture.pipeline.image(for: request)
            await fixture.pipeline.dataCache?.flush()
            #expect(await fixture.pipeline.dataCache?.variantCount == 1)
        }
    }

    @Test(arguments: CacheStores.allCases)
    func removingAURLRemovesItsVariants(stores: CacheStores) async throws {
        try await withTestFixture(configure: { stores.apply(to: &$0); $0.diskCachePolicy = .originalsAndVariants }) { fixture in
            fixture.server.serve("/r.png", .image(try TestImages.texture(width: 100, height: 100, format: .png)))
            fixture.server.serve("/other.png", .image(try TestImages.texture(width: 100, height: 100, format: .png)))
            let url = fixture.server.url("/r.png")
            for sigma in [1.0, 2.0] { _ = try await fixture.pipeline.image(for: ImageRequest(url: url, processors: [.blur(sigma: sigma)])) }
            _ = try await fixture.pipeline.image(for: ImageRequest(url: fixture.server.url("/other.png"), processors: [.blur(sigma: 1)]))
            await fixture.pipeline.dataCache?.flush()
            #expect(await fixture.pipeline.dataCache?.variantCount == 3)
            await fixture.pipeline.dataCache?.removeEntry(for: url.absoluteString)
            #expect(await fixture.pipeline.dataCache?.variantCount == 1, "only the other URL's variant is left")
            #expect(await fixture.pipeline.dataCache?.count == 2)
        }
    }

    @Test(arguments: CacheStores.allCases)
    func newBytesFromTheServerRetireTheVariants(stores: CacheStores) async throws {
        try await withTestFixture(configure: { stores.apply(to: &$0); $0.diskCachePolicy = .originalsAndVariants }) { fixture in
            let red = DecodedImage(width: 8, height: 8, pixels: [UInt8](repeating: 0, count: 256).enumerated().map { $0.offset % 4 == 0 || $0.offset % 4 == 3 ? 255 : 0 })
            let blue = DecodedImage(width: 8, height: 8, pixels: [UInt8](repeating: 0, count: 256).enumerated().map { $0.offset % 4 == 2 || $0.offset % 4 == 3 ? 255 : 0 })
            fixture.server.serve("/v.png", ServedRoute(body: try ImageEncoder().encode(red, as: .png), contentType: "image/png", etag: "\"red\""))
            let url = fixture.server.url("/v.png")
            let request = ImageRequest(url: url, processors: [.resize(width: 4, height: 4)])
            #expect(try await fixture.pipeline.image(for: request).image.pixel(x: 1, y: 1).red > 200)

            fixture.server.serve("/v.png", ServedRoute(body: try ImageEncoder().encode(blue, as: .png), contentType: "image/png", etag: "\"blue\""))
            let refreshed = try await fixture.pipeline.image(for: ImageRequest(url: url, options: .refreshCached))
            #expect(refreshed.image.pixel(x: 1, y: 1).blue > 200)
            fixture.pipeline.memoryCache?.removeAll()
            let variant = try await fixture.pipeline.image(for: request)
            #expect(variant.image.pixel(x: 1, y: 1).blue > 200, "the red variant is not served after the blue bytes came")

            // A network-only load replaces the bytes without reading the old entry first.
            fixture.server.serve("/v.png", ServedRoute(body: try ImageEncoder().encode(red, as: .png), contentType: "image/png", etag: "\"red2\""))
            _ = try await fixture.pipeline.image(for: ImageRequest(url: url, options: .networkOnly))
            fixture.pipeline.memoryCache?.removeAll()
            #expect(try await fixture.pipeline.image(for: request).image.pixel(x: 1, y: 1).red > 200, "the blue variant is retired in turn")
        }
    }

    @Test(arguments: CacheStores.allCases)
    func refreshingAnEntryWithoutValidatorsDownloadsAgain(stores: CacheStores) async throws {
        try await withTestFixture(configure: { stores.apply(to: &$0) }) { fixture in
            fixture.server.serve("/n.png", .image(try TestImages.texture(width: 16, height: 16, format: .png)))
            let url = fixture.server.url("/n.png")
            _ = try await fixture.pipeline.image(for: url)
            let refreshed = try await fixture.pipeline.image(for: ImageRequest(url: url, options: .refreshCached))
            #expect(refreshed.source == .network)
            #expect(fixture.server.statistics(for: "/n.png").requests == 2)
            #expect(fixture.server.statistics(for: "/n.png").lastRequestHeaders["if-none-match"] == nil)
        }
    }

    @Test(arguments: CacheStores.allCases)
    func theDemoWarmRowCase(stores: CacheStores) async throws {
        // Thumbnails only (no processors) are variants too: a warm start decodes 256 px files.
        try await withTestFixture(configure: { stores.apply(to: &$0); $0.diskCachePolicy = .originalsAndVariants }) { fixture in
            fixture.server.serve("/t.jpg", .image(try TestImages.texture(width: 800, height: 600, format: .jpeg)))
            let request = ImageRequest(url: fixture.server.url("/t.jpg"), thumbnail: .init(width: 256, height: 256))
            _ = try await fixture.pipeline.image(for: request)
            try await Self.restarted(fixture) { pipeline in
                let again = try await pipeline.image(for: request)
                #expect(again.source == .disk)
                #expect(again.image.width == 256)
                let reread = try #require(await pipeline.dataCache?.variantEntry(
                    for: request.url.absoluteString, variant: try Self.variantName(request)))
                #expect(reread.data.count < 64 * 1024)
            }
        }
    }

    static func variantName(_ request: ImageRequest) throws -> String {
        try #require(RequestKeys(request, configuration: ImagePipeline.Configuration()).variant)
    }
}
