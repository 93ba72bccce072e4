public import Foundation

/// Where a pipeline keeps original bytes and the encoded variants made from them (Nuke's
/// `DataCaching`). ``DataCache`` (files on disk) is the default; give your own in
/// ``ImagePipeline/Configuration/dataCache``.
///
/// A variant belongs to its original: removing the original removes its variants, and new
/// bytes for it retire them (``removeVariants(of:)``). Writes may finish in the background, but
/// an entry handed to ``store(_:)`` must be readable at once.
public protocol DataCaching: AnyObject, Sendable {
    /// The entry stored under `key`, or `nil` on a miss.
    func entry(for key: String) async -> CachedData?
    /// Whether an entry for `key` is stored, without reading it; cheap enough for a prefetcher.
    func containsEntry(for key: String) -> Bool
    /// Stores `entry`, replacing any entry with the same key. Failures are the cache's to log:
    /// a cache that cannot write must not fail a load.
    func store(_ entry: CachedData)
    /// Removes the entry stored under `key` and every variant made from it.
    func removeEntry(for key: String) async

    /// The encoded variant `variant` of the original stored under `key`, or `nil`.
    func variantEntry(for key: String, variant: String) async -> CachedData?
    /// Whether the variant is stored, without reading it.
    func containsVariant(for key: String, variant: String) -> Bool
    /// Stores an encoded variant of the original under `key`, with `metadata` kept as its
    /// ``CachedData/metadata``: the redirects the original came through, and for encoded
    /// output the original's validators, the variant's media type and until when it is fresh.
    func storeVariant(_ bytes: [UInt8], for key: String, variant: String, metadata: HTTPMetadata)
    /// Removes one variant.
    func removeVariant(for key: String, variant: String) async
    /// Removes every variant of `key`, keeping the original; later reads miss at once.
    func removeVariants(of key: String)

    /// Removes every entry.
    func removeAll() async
    /// Waits until every write handed over so far is done.
    func flush() async
    /// Number of entries, originals and variants.
    var count: Int { get async }
    /// Number of variants.
    var variantCount: Int { get async }
    /// Total size of the entries in bytes.
    var totalSize: Int { get async }
}

extension DataCaching {
    /// Stores an encoded variant made from bytes that came through `redirects`.
    public func storeVariant(_ bytes: [UInt8], for key: String, variant: String, redirects: [URL] = []) {
        storeVariant(bytes, for: key, variant: variant, metadata: HTTPMetadata(redirects: redirects))
    }
}

extension DataCache: DataCaching {}
