public import Foundation

/// Where a pipeline keeps the original bytes it downloaded, so the next load of the URL reads
/// them instead of the network. ``DataCache`` (files on disk) is the default; a
/// ``SharedStore`` keeps them in a bucket that several processes share.
///
/// Reads are asynchronous: a store may be across the network. Writes may finish in the
/// background, but an entry handed to ``store(_:)`` should be readable at once where the store
/// can manage it; a store that cannot write must not fail a load (it logs, never throws).
public protocol OriginalStoring: AnyObject, Sendable {
    /// The entry stored under `key`, or `nil` on a miss (absent, expired, damaged, unreachable).
    func entry(for key: String) async -> CachedData?
    /// Whether an entry for `key` is stored, as cheaply as the store can tell (a prefetcher
    /// deciding what to skip asks this).
    func containsEntry(for key: String) async -> Bool
    /// Stores `entry`, replacing any entry with the same key.
    func store(_ entry: CachedData)
    /// Removes the entry stored under `key` and every variant made from it.
    func removeEntry(for key: String) async
    /// Waits until every write handed over so far is done.
    func flush() async
}

/// Where a pipeline keeps its results: the encoded variants made from an original (processed
/// images, ``ImagePipeline/encodedImage(for:encoding:)``'s output), named by the original's
/// key and the variant's name, which together say everything that determines the bytes.
///
/// A variant belongs to its original: new bytes for the original retire its variants
/// (``removeVariants(of:)``).
public protocol VariantStoring: AnyObject, Sendable {
    /// The encoded variant `variant` of the original stored under `key`, or `nil`.
    func variantEntry(for key: String, variant: String) async -> CachedData?
    /// Whether the variant is stored, as cheaply as the store can tell.
    func containsVariant(for key: String, variant: String) async -> Bool
    /// Stores an encoded variant of the original under `key`, with `metadata` kept as its
    /// ``CachedData/metadata``: the redirects the original came through, and for encoded
    /// output the original's validators, the variant's media type and until when it is fresh.
    func storeVariant(_ bytes: [UInt8], for key: String, variant: String, metadata: HTTPMetadata)
    /// Removes one variant (it did not decode, or it is damaged).
    func removeVariant(for key: String, variant: String) async
    /// Removes every variant of `key`, keeping the original; later reads miss.
    func removeVariants(of key: String) async
    /// Waits until every write handed over so far is done.
    func flush() async
}

extension OriginalStoring {
    public func containsEntry(for key: String) async -> Bool { await entry(for: key) != nil }
}

extension VariantStoring {
    public func containsVariant(for key: String, variant: String) async -> Bool {
        await variantEntry(for: key, variant: variant) != nil
    }

    /// Stores an encoded variant made from bytes that came through `redirects`.
    public func storeVariant(_ bytes: [UInt8], for key: String, variant: String, redirects: [URL] = []) {
        storeVariant(bytes, for: key, variant: variant, metadata: HTTPMetadata(redirects: redirects))
    }
}

/// A local store of both originals and variants that can say what it holds (Nuke's
/// `DataCaching`): ``DataCache`` on disk, or your own in
/// ``ImagePipeline/Configuration/dataCache``. A shared store behind it
/// (``ImagePipeline/Configuration/sharedStore``) is asked when it misses.
public protocol DataCaching: OriginalStoring, VariantStoring {
    /// Removes every entry.
    func removeAll() async
    /// Number of entries, originals and variants.
    var count: Int { get async }
    /// Number of variants.
    var variantCount: Int { get async }
    /// Total size of the entries in bytes.
    var totalSize: Int { get async }
}

extension DataCache: DataCaching {}
