import Foundation
@testable import Magpie
import MagpieTesting
import NIOConcurrencyHelpers
import Testing

/// A load reads the memory cache once: a miss is not read again on the way to the stages,
/// unless the pipeline stored an image after it (an identical load that finished between the
/// miss and this load's own start), when the image is taken from there, not made again.
@Suite("One memory read a load")
struct MemoryReadTests {
    /// A dictionary counting its reads; `onRead` runs inside each read, after the lookup.
    final class CountingImageCache: ImageCaching {
        private let images = NIOLockedValueBox([ImageCacheKey: DecodedImage]())
        private let counted = NIOLockedValueBox(0)
        let onRead = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)

        var reads: Int { counted.withLockedValue { $0 } }
        subscript(key: ImageCacheKey) -> DecodedImage? {
            let image = images.withLockedValue { $0[key] }
            counted.withLockedValue { $0 += 1 }
            onRead.withLockedValue { $0 }?()
            return image
        }
        func store(_ image: DecodedImage, for key: ImageCacheKey) { images.withLockedValue { $0[key] = image } }
        func removeValue(for key: ImageCacheKey) { images.withLockedValue { $0[key] = nil } }
        func removeAll() { images.withLockedValue { $0.removeAll() } }
        var totalCost: Int { images.withLockedValue { $0.values.reduce(0) { $0 + $1.byteCount } } }
        var count: Int { images.withLockedValue { $0.count } }
    }

    @Test func aColdLoadAndAHitEachReadOnce() async throws {
        let cache = CountingImageCache()
        try await withTestFixture(configure: { $0.imageCache = cache }) { fixture in
            fixture.server.serve("/a.png", .image(try TestImages.texture(width: 64, height: 48, format: .png)))
            let request = ImageRequest(url: fixture.server.url("/a.png"), thumbnail: .init(width: 32, height: 32, fit: .fit))
            #expect(try await fixture.pipeline.image(for: request).source == .network)
            #expect(cache.reads == 1, "a cold load")
            #expect(try await fixture.pipeline.image(for: request).source == .memory)
            #expect(cache.reads == 2, "a hit")
            cache.removeAll()
            #expect(try await fixture.pipeline.imageTask(with: request).response.source == .disk)
            #expect(cache.reads == 3, "a task's load")
        }
    }

    /// The image an identical load stored between this load's miss and its start is taken from
    /// the memory cache: the source is not asked again.
    @Test func anImageStoredAfterTheMissIsTakenFromMemory() async throws {
        let cache = CountingImageCache()
        try await withTestFixture(configure: { $0.imageCache = cache; $0.diskCache = nil }) { fixture in
            fixture.server.serve("/b.png", .image(try TestImages.texture(width: 64, height: 48, format: .png)))
            let request = ImageRequest(url: fixture.server.url("/b.png"))
            let key = RequestKeys.memoryKey(for: request, cacheKey: fixture.pipeline.configuration.cacheKey)
            let made = DecodedImage(width: 2, height: 2, pixels: [UInt8](repeating: 7, count: 16))
            let memory = try #require(fixture.pipeline.context.memory)
            // As another load finishing would: stored through the pipeline just after the miss.
            cache.onRead.withLockedValue { [memory] read in
                read = { memory.store(made, for: key) }
            }
            let response = try await fixture.pipeline.image(for: request)
            cache.onRead.withLockedValue { $0 = nil }
            #expect(response.source == .memory && response.image.pixels == made.pixels)
            #expect(fixture.server.statistics(for: "/b.png").requests == 0)
            #expect(cache.reads == 2, "the miss, and the read after the store")
        }
    }
}
