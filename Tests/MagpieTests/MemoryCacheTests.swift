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

    /// Thousands of random stores, reads, removals and trims against a plain array model of
    /// least-recently-used order: the same images survive, in the same order, at the same cost.
    @Test func matchesASimpleModelUnderRandomUse() {
        let cache = ImageCache(limits: .init(totalCost: 40 * 4, count: 6, entryCost: 1 << 20))
        var model: [(name: String, cost: Int)] = []  // least recently used first
        var generator = SystemRandomNumberGenerator()
        func enforce(cost limit: Int, count countLimit: Int) {
            while model.reduce(0, { $0 + $1.cost }) > limit || model.count > countLimit { model.removeFirst() }
        }
        for step in 0..<5_000 {
            let name = "k\(Int.random(in: 0..<12, using: &generator))"
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                let width = Int.random(in: 1...10, using: &generator)
                cache.store(DecodedImage(width: width, height: 1, pixels: [UInt8](repeating: 0, count: width * 4)), for: Self.key(name))
                model.removeAll { $0.name == name }
                model.append((name, width * 4))
                enforce(cost: 40 * 4, count: 6)
            case 4..<8:
                let found = cache[Self.key(name)]
                if let position = model.firstIndex(where: { $0.name == name }) {
                    #expect(found?.byteCount == model[position].cost, "step \(step)")
                    model.append(model.remove(at: position))
                } else {
                    #expect(found == nil, "step \(step)")
                }
            case 8:
                cache.removeValue(for: Self.key(name))
                model.removeAll { $0.name == name }
            default:
                let limit = Int.random(in: 0...160, using: &generator)
                cache.trim(toCost: limit)
                enforce(cost: limit, count: .max)
            }
            #expect(cache.count == model.count, "step \(step)")
            #expect(cache.totalCost == model.reduce(0) { $0 + $1.cost }, "step \(step)")
        }
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
