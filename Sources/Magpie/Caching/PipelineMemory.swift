import Synchronization

/// The memory cache as a pipeline reads and fills it. Every image the pipeline stores is
/// counted, so a load that missed can tell later, without reading the cache again, whether an
/// image may have been stored since: the one way its image can be there before it makes it is
/// an identical load that finished and left the stage between its miss and its own start.
final class PipelineMemory: Sendable {
    /// What the miss saw of the stores: compared by ``mayHoldMore(than:)``.
    struct Miss: Sendable, Equatable {
        fileprivate let stores: Int
    }

    enum Lookup {
        case hit(DecodedImage)
        case miss(Miss)
    }

    let cache: any ImageCaching
    private let stores = Atomic<Int>(0)

    init(_ cache: any ImageCaching) {
        self.cache = cache
    }

    /// The image under `key`, or the miss that a later ``mayHoldMore(than:)`` compares with.
    /// The count is read before the cache: a store between the two is seen as one since.
    func image(for key: ImageCacheKey) -> Lookup {
        let miss = Miss(stores: stores.load(ordering: .acquiring))
        return cache[key].map { .hit($0) } ?? .miss(miss)
    }

    /// Stores `image` under `key` and counts it.
    func store(_ image: DecodedImage, for key: ImageCacheKey) {
        cache.store(image, for: key)
        stores.add(1, ordering: .releasing)
    }

    /// Whether the pipeline has stored anything since `miss` (always, when there was none).
    func mayHoldMore(than miss: Miss?) -> Bool {
        guard let miss else { return true }
        return stores.load(ordering: .acquiring) != miss.stores
    }
}
