import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("Memory cache")
struct MemoryCacheTests {
    static func image(_ side: Int) -> DecodedImage {
        DecodedImage(width: side, height: side, pixels: [UInt8](repeating: 1, count: side * side * 4))
    }

    static func key(_ name: String) -> ImageCacheKey { ImageCacheKey(dataKey: name, thumbnail: nil) }

    @Test func evictsLeastRecentlyUsedByCost() {
        // Each 10x10 image costs 400 bytes; room for three.
        let cache = ImageCache(limits: .init(totalCost: 1_200, entryCost: 1_200))
        cache.store(Self.image(10), for: Self.key("a"))
        cache.store(Self.image(10), for: Self.key("b"))
        cache.store(Self.image(10), for: Self.key("c"))
        _ = cache[Self.key("a")]  // a is now the most recently used
        cache.store(Self.image(10), for: Self.key("d"))
        #expect(cache[Self.key("b")] == nil)
        #expect(cache[Self.key("a")] != nil)
        #expect(cache[Self.key("c")] != nil)
        #expect(cache[Self.key("d")] != nil)
        #expect(cache.totalCost == 1_200)
    }

    @Test func respectsCountLimit() {
        let cache = ImageCache(limits: .init(totalCost: 1 << 30, count: 2))
        for name in ["a", "b", "c"] { cache.store(Self.image(2), for: Self.key(name)) }
        #expect(cache.count == 2)
        #expect(cache[Self.key("a")] == nil)
    }

    @Test func refusesEntriesAboveTheEntryLimit() {
        let cache = ImageCache(limits: .init(totalCost: 10_000))  // entry limit 1,000
        cache.store(Self.image(20), for: Self.key("big"))  // 1,600 bytes
        #expect(cache[Self.key("big")] == nil)
        cache.store(Self.image(10), for: Self.key("small"))
        #expect(cache[Self.key("small")] != nil)
    }

    @Test func expiresAfterTimeToLive() {
        let clock = ManualClock()
        let cache = ImageCache(limits: .init(totalCost: 1 << 20, timeToLive: .seconds(60)), now: clock.monotonic)
        cache.store(Self.image(4), for: Self.key("a"))
        clock.advance(by: .seconds(59))
        #expect(cache[Self.key("a")] != nil)
        clock.advance(by: .seconds(2))
        #expect(cache[Self.key("a")] == nil)
        #expect(cache.count == 0)
    }

    @Test func removeAllAndTrim() {
        let cache = ImageCache(limits: .init(totalCost: 1 << 20))
        for name in ["a", "b", "c", "d"] { cache.store(Self.image(10), for: Self.key(name)) }
        cache.trim(toCost: 800)
        #expect(cache.count == 2)
        #expect(cache[Self.key("d")] != nil && cache[Self.key("c")] != nil)
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0)
    }

    @Test func replacingAnEntryKeepsCostRight() {
        let cache = ImageCache(limits: .init(totalCost: 1 << 20))
        cache.store(Self.image(10), for: Self.key("a"))
        cache.store(Self.image(5), for: Self.key("a"))
        #expect(cache.totalCost == 100)
        cache.removeValue(for: Self.key("a"))
        #expect(cache.totalCost == 0)
    }

    @Test func defaultLimitsFollowDesign() {
        let limits = ImageCache.Limits.default
        let physical = Int(ProcessInfo.processInfo.physicalMemory)
        #expect(limits.totalCost == min(physical / 100 * 15, 768 * 1024 * 1024))
        #expect(limits.entryCost == limits.totalCost / 10)
    }

    @Test func concurrentUseIsSafe() async {
        let cache = ImageCache(limits: .init(totalCost: 50_000))
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<2_000 {
                        let key = Self.key("\((worker * 7 + index) % 97)")
                        if index % 3 == 0 { cache.store(Self.image(8), for: key) } else { _ = cache[key] }
                    }
                }
            }
        }
        #expect(cache.totalCost <= 50_000)
        #expect(cache.totalCost == cache.count * 256)
    }
}
