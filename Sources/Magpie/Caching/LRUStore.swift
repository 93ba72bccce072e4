/// A doubly linked list threaded through a dictionary: O(1) lookup, promotion and eviction.
/// Not thread-safe; ``ImageCache`` guards it with a lock.
///
/// `@unchecked Sendable` because its nodes are classes: safe, since the only instance lives in
/// ``ImageCache``'s lock box and is touched only inside `withLockedValue`, and no node ever
/// leaves the store (callers get the `DecodedImage` value, not the node).
struct LRUStore: @unchecked Sendable {
    private final class Node {
        let key: ImageCacheKey
        var image: DecodedImage
        var cost: Int
        var expiry: ContinuousClock.Instant?
        // The list owns nodes through `newer`; `older` is unowned to avoid a cycle. It never
        // dangles: every linked node is also retained by `nodes`, and a node is unlinked
        // before it leaves that dictionary.
        var newer: Node?
        unowned(unsafe) var older: Node?

        init(key: ImageCacheKey, image: DecodedImage, cost: Int, expiry: ContinuousClock.Instant?) {
            self.key = key
            self.image = image
            self.cost = cost
            self.expiry = expiry
        }
    }

    private var nodes: [ImageCacheKey: Node] = [:]
    private var oldest: Node?
    private var newest: Node?
    private(set) var totalCost = 0

    var count: Int { nodes.count }

    /// The image for `key`, ignoring expiry (the cache has no time to live).
    mutating func value(for key: ImageCacheKey) -> DecodedImage? {
        guard let node = nodes[key] else { return nil }
        moveToNewest(node)
        return node.image
    }

    /// The image for `key` unless it expired at or before `now`.
    mutating func value(for key: ImageCacheKey, at now: ContinuousClock.Instant) -> DecodedImage? {
        guard let node = nodes[key] else { return nil }
        if let expiry = node.expiry, expiry <= now {
            remove(node)
            return nil
        }
        moveToNewest(node)
        return node.image
    }

    mutating func insert(_ image: DecodedImage, cost: Int, expiry: ContinuousClock.Instant?, for key: ImageCacheKey) {
        if let existing = nodes[key] {
            totalCost += cost - existing.cost
            existing.image = image
            existing.cost = cost
            existing.expiry = expiry
            moveToNewest(existing)
            return
        }
        let node = Node(key: key, image: image, cost: cost, expiry: expiry)
        nodes[key] = node
        totalCost += cost
        append(node)
    }

    mutating func remove(_ key: ImageCacheKey) -> DecodedImage? {
        guard let node = nodes[key] else { return nil }
        remove(node)
        return node.image
    }

    mutating func removeAll() {
        // Break the chain iteratively so a long list is not released recursively.
        var node = oldest
        while let current = node {
            node = current.newer
            current.newer = nil
        }
        nodes.removeAll()
        oldest = nil
        newest = nil
        totalCost = 0
    }

    mutating func trim(toCost cost: Int, count: Int) {
        while totalCost > cost || nodes.count > count, let victim = oldest {
            remove(victim)
        }
    }

    private mutating func remove(_ node: Node) {
        unlink(node)
        nodes[node.key] = nil
        totalCost -= node.cost
    }

    private mutating func moveToNewest(_ node: Node) {
        guard node !== newest else { return }
        unlink(node)
        append(node)
    }

    private mutating func append(_ node: Node) {
        node.older = newest
        node.newer = nil
        newest?.newer = node
        newest = node
        if oldest == nil { oldest = node }
    }

    private mutating func unlink(_ node: Node) {
        let older = node.older
        let newer = node.newer
        if let older { older.newer = newer } else { oldest = newer }
        if let newer { newer.older = older } else { newest = older }
        node.older = nil
        node.newer = nil
    }
}
