import Foundation
import Magpie
import NIOConcurrencyHelpers
import Testing

/// Which stores a pipeline's caches use: its defaults (``ImageCache``, ``DataCache`` on disk),
/// or implementations of the protocols given in the configuration, as an app would inject its
/// own. The cache behaviour tests run against both.
enum CacheStores: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case defaults
    case injected

    var testDescription: String { rawValue }

    /// Gives `configuration` the stores; the injected ones are new objects each time.
    func apply(to configuration: inout ImagePipeline.Configuration) {
        guard self == .injected else { return }
        configuration.imageCache = DictionaryImageCache()
        configuration.dataCache = InMemoryDataCache()
    }
}

/// An unbounded memory cache in a dictionary: the simplest ``ImageCaching``.
final class DictionaryImageCache: ImageCaching {
    private let images = NIOLockedValueBox([ImageCacheKey: DecodedImage]())

    subscript(key: ImageCacheKey) -> DecodedImage? { images.withLockedValue { $0[key] } }
    func store(_ image: DecodedImage, for key: ImageCacheKey) { images.withLockedValue { $0[key] = image } }
    func removeValue(for key: ImageCacheKey) { images.withLockedValue { $0[key] = nil } }
    func removeAll() { images.withLockedValue { $0.removeAll() } }
    var totalCost: Int { images.withLockedValue { $0.values.reduce(0) { $0 + $1.byteCount } } }
    var count: Int { images.withLockedValue { $0.count } }
}

/// Originals and variants in memory: a ``DataCaching`` that is not files, as an object store
/// or a cache shared over the network would be.
final class InMemoryDataCache: DataCaching {
    private struct Entries {
        var originals: [String: CachedData] = [:]
        /// Variant name → entry, by original key.
        var variants: [String: [String: CachedData]] = [:]
    }

    private let entries = NIOLockedValueBox(Entries())

    func entry(for key: String) async -> CachedData? { entries.withLockedValue { $0.originals[key] } }
    func containsEntry(for key: String) -> Bool { entries.withLockedValue { $0.originals[key] != nil } }
    func store(_ entry: CachedData) { entries.withLockedValue { $0.originals[entry.key] = entry } }

    func removeEntry(for key: String) async {
        entries.withLockedValue {
            $0.originals[key] = nil
            $0.variants[key] = nil
        }
    }

    func variantEntry(for key: String, variant: String) async -> CachedData? {
        entries.withLockedValue { $0.variants[key]?[variant] }
    }

    func containsVariant(for key: String, variant: String) -> Bool {
        entries.withLockedValue { $0.variants[key]?[variant] != nil }
    }

    func storeVariant(_ bytes: [UInt8], for key: String, variant: String, metadata: HTTPMetadata) {
        let entry = CachedData(key: key + "|" + variant, data: bytes, metadata: metadata)
        entries.withLockedValue { $0.variants[key, default: [:]][variant] = entry }
    }

    func removeVariant(for key: String, variant: String) async { entries.withLockedValue { _ = $0.variants[key]?.removeValue(forKey: variant) } }
    func removeVariants(of key: String) { entries.withLockedValue { $0.variants[key] = nil } }
    func removeAll() async { entries.withLockedValue { $0 = Entries() } }
    func flush() async {}

    var count: Int {
        get async { entries.withLockedValue { $0.originals.count + $0.variants.values.reduce(0) { $0 + $1.count } } }
    }

    var variantCount: Int {
        get async { entries.withLockedValue { $0.variants.values.reduce(0) { $0 + $1.count } } }
    }

    var totalSize: Int {
        get async {
            entries.withLockedValue { entries in
                entries.originals.values.reduce(0) { $0 + $1.data.count }
                    + entries.variants.values.flatMap(\.values).reduce(0) { $0 + $1.data.count }
            }
        }
    }
}
