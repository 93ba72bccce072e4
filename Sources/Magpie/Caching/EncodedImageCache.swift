import NIOConcurrencyHelpers

/// Encoded images in memory, least recently used first out, bounded by their size in bytes;
/// an entry older than the pipeline's ``ImagePipeline/Configuration/encodedImageMaxAge`` is a miss.
final class EncodedImageCache: Sendable {
    private let store = NIOLockedValueBox(LRUStore<EncodedImageKey, EncodedImage>())
    private let limit: Int
    private let clock: @Sendable () -> ContinuousClock.Instant

    init(limit: Int, clock: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.limit = limit
        self.clock = clock
    }

    subscript(key: EncodedImageKey) -> EncodedImage? {
        store.withLockedValue { $0.value(for: key, at: clock()) }
    }

    /// Keeps `image` until `maximumAge` from now has passed (`nil`: no age limit). One image
    /// larger than an eighth of the limit is not kept: it would push out many small ones.
    func store(_ image: EncodedImage, for key: EncodedImageKey, maximumAge: Duration?) {
        guard image.data.count <= limit / 8 else { return }
        let expiry = maximumAge.map { clock() + $0 }
        store.withLockedValue { store in
            store.insert(image, cost: image.data.count, expiry: expiry, for: key)
            store.trim(toCost: limit, count: .max)
        }
    }

    func removeAll() {
        store.withLockedValue { $0.removeAll() }
    }
}
