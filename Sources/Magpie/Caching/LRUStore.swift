/// A doubly linked list threaded through an array of slots, with a dictionary from key to
/// slot: O(1) lookup, promotion and eviction. Not thread-safe; ``ImageCache`` guards it with
/// a lock, and so does the proxy server's result cache.
///
/// Links are slot numbers rather than object references, so a hit retains nothing but the
/// value it returns, and the store is a plain value (`Sendable` without exceptions).
package struct LRUStore<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Slot: Sendable {
        var key: Key
        /// `nil` while the slot is free, so its value is released at once (the key stays
        /// until the slot is reused; the slot array never outgrows the most entries held).
        var image: Value?
        var cost: Int
        var expiry: ContinuousClock.Instant?
        var older: Int
        var newer: Int
    }

    private static var none: Int { -1 }

    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var indexOfKey: [Key: Int] = [:]
    private var oldest = -1
    private var newest = -1
    package private(set) var totalCost = 0

    package init() {}

    package var count: Int { indexOfKey.count }

    /// The value for `key`, ignoring expiry (the cache has no time to live).
    package mutating func value(for key: Key) -> Value? {
        guard let index = indexOfKey[key] else { return nil }
        moveToNewest(index)
        return slots[index].image
    }

    /// The value for `key` unless it expired at or before `now`, which is read only for an
    /// entry that expires (a miss reads no clock).
    package mutating func value(for key: Key, at now: @autoclosure () -> ContinuousClock.Instant) -> Value? {
        guard let index = indexOfKey[key] else { return nil }
        if let expiry = slots[index].expiry, expiry <= now() {
            remove(at: index)
            return nil
        }
        moveToNewest(index)
        return slots[index].image
    }

    package mutating func insert(_ image: Value, cost: Int, expiry: ContinuousClock.Instant?, for key: Key) {
        if let index = indexOfKey[key] {
            totalCost += cost - slots[index].cost
            slots[index].image = image
            slots[index].cost = cost
            slots[index].expiry = expiry
            moveToNewest(index)
            return
        }
        let slot = Slot(key: key, image: image, cost: cost, expiry: expiry, older: Self.none, newer: Self.none)
        let index: Int
        if let free = freeSlots.popLast() {
            index = free
            slots[index] = slot
        } else {
            index = slots.count
            slots.append(slot)
        }
        indexOfKey[key] = index
        totalCost += cost
        append(index)
    }

    package mutating func remove(_ key: Key) -> Value? {
        guard let index = indexOfKey[key] else { return nil }
        let image = slots[index].image
        remove(at: index)
        return image
    }

    package mutating func removeAll() {
        slots.removeAll()
        freeSlots.removeAll()
        indexOfKey.removeAll()
        oldest = Self.none
        newest = Self.none
        totalCost = 0
    }

    package mutating func trim(toCost cost: Int, count: Int) {
        while totalCost > cost || indexOfKey.count > count, oldest != Self.none {
            remove(at: oldest)
        }
    }

    private mutating func remove(at index: Int) {
        unlink(index)
        indexOfKey[slots[index].key] = nil
        totalCost -= slots[index].cost
        slots[index].image = nil
        slots[index].cost = 0
        freeSlots.append(index)
    }

    private mutating func moveToNewest(_ index: Int) {
        guard index != newest else { return }
        unlink(index)
        append(index)
    }

    private mutating func append(_ index: Int) {
        slots[index].older = newest
        slots[index].newer = Self.none
        if newest != Self.none { slots[newest].newer = index }
        newest = index
        if oldest == Self.none { oldest = index }
    }

    private mutating func unlink(_ index: Int) {
        let older = slots[index].older
        let newer = slots[index].newer
        if older != Self.none { slots[older].newer = newer } else { oldest = newer }
        if newer != Self.none { slots[newer].older = older } else { newest = older }
        slots[index].older = Self.none
        slots[index].newer = Self.none
    }
}
