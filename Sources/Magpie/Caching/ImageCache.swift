import Foundation
import NIOConcurrencyHelpers

/// Decoded images in memory, evicted least recently used first by total cost (decoded bytes)
/// and count, with an optional time to live.
///
/// All methods are synchronous and thread-safe: a read takes one short lock, so a cached image
/// can be shown in the same turn of the run loop that asked for it.
public final class ImageCache: Sendable {
    /// Limits of a memory cache.
    public struct Limits: Sendable {
        /// Largest total cost (decoded bytes) kept.
        public var totalCost: Int
        /// Largest number of images kept.
        public var count: Int
        /// Largest cost of one image; larger ones are not cached.
        public var entryCost: Int
        /// How long an entry may be served after it was stored; `nil` keeps it until evicted.
        public var timeToLive: Duration?

        /// Creates limits.
        public init(totalCost: Int, count: Int = .max, entryCost: Int? = nil, timeToLive: Duration? = nil) {
            self.totalCost = totalCost
            self.count = count
            self.entryCost = entryCost ?? totalCost / 10
            self.timeToLive = timeToLive
        }

        /// 15% of physical memory, at most 768 MB; one entry at most 10% of that.
        public static var `default`: Limits {
            let fifteenPercent = ProcessInfo.processInfo.physicalMemory / 100 * 15
            let total = Int(min(fifteenPercent, 768 * 1024 * 1024))
            return Limits(totalCost: total)
        }
    }

    private let state: NIOLockedValueBox<LRUStore<ImageCacheKey, DecodedImage>>
    private let limits: Limits
    private let now: @Sendable () -> ContinuousClock.Instant

    /// Creates a memory cache. `now` is injectable so tests can move time without sleeping.
    public init(
        limits: Limits = .default,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.limits = limits
        self.now = now
        self.state = NIOLockedValueBox(LRUStore())
    }

    /// The image stored under `key`, or `nil`. Marks it as recently used.
    public subscript(key: ImageCacheKey) -> DecodedImage? {
        // Reading the clock costs as much as the rest of a hit; only a TTL needs it.
        guard limits.timeToLive != nil else {
            return state.withLockedValue { $0.value(for: key) }
        }
        let instant = now()
        return state.withLockedValue { $0.value(for: key, at: instant) }
    }

    /// Stores `image` under `key`, evicting older entries to stay within the limits.
    /// An image costing more than ``Limits/entryCost`` is not stored.
    public func store(_ image: DecodedImage, for key: ImageCacheKey) {
        let cost = image.byteCount
        guard cost <= limits.entryCost else { return }
        let expiry = limits.timeToLive.map { now() + $0 }
        state.withLockedValue { store in
            store.insert(image, cost: cost, expiry: expiry, for: key)
            store.trim(toCost: limits.totalCost, count: limits.count)
        }
    }

    /// Removes the image stored under `key`.
    public func removeValue(for key: ImageCacheKey) {
        state.withLockedValue { _ = $0.remove(key) }
    }

    /// Removes every image.
    public func removeAll() {
        state.withLockedValue { $0.removeAll() }
    }

    /// Evicts least recently used images until the total cost is at most `cost`.
    public func trim(toCost cost: Int) {
        state.withLockedValue { $0.trim(toCost: cost, count: .max) }
    }

    /// Total cost of the images held.
    public var totalCost: Int { state.withLockedValue { $0.totalCost } }

    /// Number of images held.
    public var count: Int { state.withLockedValue { $0.count } }
}

/// Identifies one decoded variant of an image: the URL's cache key plus how it was decoded
/// and processed.
public struct ImageCacheKey: Sendable, Hashable {
    /// The cache key of the original bytes (the URL after the pipeline's key filter).
    public let dataKey: String
    /// The thumbnail box, if the image was downsampled.
    public let thumbnail: ImageRequest.Thumbnail?
    /// The processors' identifiers joined into one string: a hit on an unprocessed image, the
    /// common case, then costs no array to retain, hash or compare.
    private let processorList: String
    /// Whether only the first frame of an animation was decoded
    /// (``ImageRequest/Options/firstFrameOnly``).
    public let firstFrameOnly: Bool
    /// The request's own source policy (``ImageRequest/sourcePolicy``), if it had one: an image
    /// loaded without it may have come through a host it refuses.
    public let sourcePolicy: SourcePolicy?
    /// The density a vector source was drawn at (``ImageRequest/vectorDPI``), if the request set one.
    public let vectorDPI: Double?
    /// Whether a deeper source kept its 16 bits a sample
    /// (``ImageRequest/Options/keepsHighDepth``).
    public let keepsHighDepth: Bool

    /// The ``ImageProcessing/identifier``s of the processors applied, in order.
    public var processors: [String] {
        processorList.isEmpty ? [] : processorList.split(separator: Self.separator, omittingEmptySubsequences: false).map(String.init)
    }

    /// Creates a key.
    public init(
        dataKey: String, thumbnail: ImageRequest.Thumbnail?, processors: [String] = [], firstFrameOnly: Bool = false,
        sourcePolicy: SourcePolicy? = nil, vectorDPI: Double? = nil, keepsHighDepth: Bool = false
    ) {
        self.dataKey = dataKey
        self.sourcePolicy = sourcePolicy
        self.vectorDPI = vectorDPI
        self.keepsHighDepth = keepsHighDepth
        self.thumbnail = thumbnail
        self.firstFrameOnly = firstFrameOnly
        processorList = processors.isEmpty ? "" : processors.joined(separator: String(Self.separator))
    }

    private static let separator: Character = "\u{1F}"

    // Keys compare and hash by their UTF-8 bytes, not as Unicode text: two URLs are the same
    // resource only if they are spelled the same, and hashing bytes skips String's
    // normalisation, which was half the cost of a memory-cache hit.
    public static func == (lhs: ImageCacheKey, rhs: ImageCacheKey) -> Bool {
        guard lhs.thumbnail == rhs.thumbnail, lhs.processorList == rhs.processorList, lhs.firstFrameOnly == rhs.firstFrameOnly,
            lhs.sourcePolicy == rhs.sourcePolicy, lhs.vectorDPI == rhs.vectorDPI, lhs.keepsHighDepth == rhs.keepsHighDepth
        else { return false }
        return lhs.dataKey.utf8.withContiguousStorageIfAvailable { left in
            rhs.dataKey.utf8.withContiguousStorageIfAvailable { right in
                left.count == right.count && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }?.flatMap { $0 } ?? lhs.dataKey.utf8.elementsEqual(rhs.dataKey.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        if dataKey.utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            for byte in dataKey.utf8 { hasher.combine(byte) }
        }
        hasher.combine(thumbnail)
        // Most keys have no processors; equal keys still hash equally without them.
        if !processorList.isEmpty { hasher.combine(processorList) }
        if firstFrameOnly { hasher.combine(true) }
        if let sourcePolicy { hasher.combine(sourcePolicy) }
        if let vectorDPI { hasher.combine(vectorDPI) }
        if keepsHighDepth { hasher.combine(2) }
    }
}
