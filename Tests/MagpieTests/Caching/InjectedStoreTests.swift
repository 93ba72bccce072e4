import Foundation
import Magpie
import MagpieTesting
import Testing

/// Stores given in the configuration are the ones the pipeline reads and writes: nothing falls
/// back to the default memory cache or files on disk.
@Suite("Injected cache stores")
struct InjectedStoreTests {
    @Test func loadsGoThroughTheInjectedStores() async throws {
        let memory = DictionaryImageCache()
        let store = InMemoryDataCache()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-injected-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withTestFixture(configure: {
            $0.imageCache = memory
            $0.dataCache = store
            $0.diskCache = DataCache.Configuration(directory: folder)
        }) { fixture in
            fixture.server.serve("/a.png", .image(try TestImages.texture(width: 64, height: 48, format: .png)))
            let url = fixture.server.url("/a.png")
            #expect(fixture.pipeline.memoryCache === memory && fixture.pipeline.dataCache === store)

            #expect(try await fixture.pipeline.image(for: ImageRequest(url: url)).source == .network)
            #expect(memory.count == 1 && fixture.pipeline.cachedImage(for: ImageRequest(url: url))?.width == 64)
            #expect(await store.entry(for: url.absoluteString)?.data.isEmpty == false)
            #expect(!FileManager.default.fileExists(atPath: folder.path), "the disk cache configuration is not used")

            fixture.pipeline.trimMemory(reason: "test")
            #expect(memory.count == 0)
            #expect(try await fixture.pipeline.image(for: ImageRequest(url: url)).source == .disk)
            #expect(fixture.server.statistics(for: "/a.png").requests == 1)

            await store.removeAll()
            memory.removeAll()
            await #expect(throws: MagpieError.notCached) { try await fixture.pipeline.image(for: ImageRequest(url: url, options: .cacheOnly)) }
        }
    }
}
