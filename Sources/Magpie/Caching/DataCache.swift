public import Foundation
import Dispatch
public import Logging
import NIOConcurrencyHelpers

/// Original image bytes on disk, one file per entry, named by the SHA-256 of the key, and
/// encoded processed variants of them (see ``DiskCachePolicy``), named after their original.
///
/// - Writes are atomic (a temporary file renamed into place), so a reader never sees half a
///   file, even from another process or after a crash.
/// - Every read checks the key and a SHA-256 of the payload; a mismatch is a miss and the
///   file is deleted.
/// - The size limit is enforced on every write, least recently used first; entries unused for
///   ``Configuration/maximumAge`` expire.
/// - File work runs on the cache's own dispatch queues, never on the caller's thread.
/// - Opening a large cache scans it in the background; loads do not wait for the scan.
public final class DataCache: Sendable {
    /// Where and how much to cache.
    public struct Configuration: Sendable {
        /// The cache directory; created (mode 0700) when missing.
        public var directory: URL
        /// Largest total size of the files, in bytes.
        public var sizeLimit: Int
        /// Entries not used for this long are removed.
        public var maximumAge: Duration

        /// Creates a configuration. Defaults: 512 MB, entries unused for 7 days expire.
        public init(directory: URL = DataCache.defaultDirectory, sizeLimit: Int = 512 * 1024 * 1024, maximumAge: Duration = .seconds(7 * 24 * 3600)) {
            self.directory = directory
            self.sizeLimit = sizeLimit
            self.maximumAge = maximumAge
        }
    }

    /// `$XDG_CACHE_HOME/magpie`, else `$HOME/.cache/magpie` (the XDG base directory rules),
    /// falling back to the account's home folder when `HOME` is unset.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("magpie", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
        return (home ?? FileManager.default.homeDirectoryForCurrentUser)
            .appendingPathComponent(".cache/magpie", isDirectory: true)
    }

    /// The configuration the cache was opened with.
    public let configuration: Configuration
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let files: DiskFiles
    /// Serial: index changes, writes and evictions happen in order.
    private let writeQueue = DispatchQueue(label: "magpie.disk-cache.write")
    /// Concurrent: reads of different files do not wait for each other or for writes.
    private let readQueue = DispatchQueue(label: "magpie.disk-cache.read", attributes: .concurrent)
    private let index = NIOLockedValueBox(DiskIndex())
    /// Entries handed to `store` whose file is not written yet, so they can be read at once.
    private let pending = NIOLockedValueBox([String: CachedData]())
    private let problems = ProblemReporter()
    private let opened = NIOLockedValueBox(false)
    /// Originals whose variants are being deleted.
    private let staleOriginals = NIOLockedValueBox(Set<String>())

    /// Whether the background scan of the directory has finished (loads never wait for it).
    public var hasFinishedOpening: Bool { opened.withLockedValue { $0 } }

    /// Opens (creating if needed) a cache. The directory is scanned in the background.
    public convenience init(
        configuration: Configuration = .init(),
        logger: Logger = Logger(label: "magpie.disk-cache"),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(configuration: configuration, logger: logger, now: now, beforeScan: nil)
    }

    /// `beforeScan` runs on the write queue before the opening scan: tests hold the scan there
    /// to prove reads do not wait for it.
    init(
        configuration: Configuration, logger: Logger, now: @escaping @Sendable () -> Date,
        beforeScan: (@Sendable () -> Void)?
    ) {
        self.configuration = configuration
        self.now = now
        self.logger = logger
        self.files = DiskFiles(directory: configuration.directory)
        writeQueue.async { [self] in
            beforeScan?()
            self.openDirectory()
        }
    }

    /// The entry stored under `key`, or `nil` on a miss (absent, expired, damaged).
    public func entry(for key: String) async -> CachedData? {
        if let waiting = pending.withLockedValue({ $0[key] }) { return waiting }
        return await withCheckedContinuation { continuation in
            readQueue.async { [self] in continuation.resume(returning: self.read(key, name: files.name(for: key))) }
        }
    }

    /// Whether an entry for `key` is stored (or being written), without reading or verifying
    /// it. Cheap enough for a prefetcher deciding what to skip.
    public func containsEntry(for key: String) -> Bool {
        if pending.withLockedValue({ $0[key] != nil }) { return true }
        return FileManager.default.fileExists(atPath: fileURL(for: key).path)
    }

    /// Stores `entry`, replacing any entry with the same key. Returns at once; the file is
    /// written in the background (``flush()`` waits for it). Failures are logged, never thrown:
    /// a disk cache that cannot write must not fail a load.
    public func store(_ entry: CachedData) {
        enqueueWrite(entry, name: files.name(for: entry.key))
    }

    /// Removes the entry stored under `key` and every variant made from it.
    public func removeEntry(for key: String) async {
        pending.withLockedValue { $0[key] = nil }
        let original = files.name(for: key)
        await onWriteQueue { cache in
            cache.delete(original)
            cache.deleteVariants(ofOriginalNamed: original)
        }
    }

    // MARK: - Variants

    /// The encoded variant `variant` of the original stored under `key`, or `nil`. Reading it
    /// does not touch the original.
    public func variantEntry(for key: String, variant: String) async -> CachedData? {
        let storageKey = Self.storageKey(key, variant: variant)
        if let waiting = pending.withLockedValue({ $0[storageKey] }) { return waiting }
        // A miss, the common case for a result not made yet, answers without a queue hop.
        guard holdsVariant(key, variant: variant) else { return nil }
        let name = files.name(for: key, variant: variant)
        return await withCheckedContinuation { continuation in
            readQueue.async { [self] in continuation.resume(returning: self.read(storageKey, name: name)) }
        }
    }

    /// Whether the variant is stored (or being written), without reading it.
    public func containsVariant(for key: String, variant: String) -> Bool {
        holdsVariant(key, variant: variant)
    }

    private func holdsVariant(_ key: String, variant: String) -> Bool {
        if staleOriginals.withLockedValue({ $0.contains(files.name(for: key)) }) { return false }
        if pending.withLockedValue({ $0[Self.storageKey(key, variant: variant)] != nil }) { return true }
        return FileManager.default.fileExists(atPath: files.url(for: files.name(for: key, variant: variant)).path)
    }

    /// Stores an encoded variant of the original stored under `key`, with `metadata` (the
    /// redirects the original came through, ``HTTPMetadata/redirects``, and what else the
    /// variant needs kept). Like ``store(_:)``, returns at once and writes in the background.
    public func storeVariant(_ bytes: [UInt8], for key: String, variant: String, metadata: HTTPMetadata) {
        let entry = CachedData(key: Self.storageKey(key, variant: variant), data: bytes, metadata: metadata)
        enqueueWrite(entry, name: files.name(for: key, variant: variant))
    }

    /// Removes one variant.
    public func removeVariant(for key: String, variant: String) async {
        pending.withLockedValue { $0[Self.storageKey(key, variant: variant)] = nil }
        await onWriteQueue { cache in cache.delete(cache.files.name(for: key, variant: variant)) }
    }

    /// Removes every variant of `key`, keeping the original: new bytes for a URL make the
    /// variants made from the old ones stale. Returns at once; later reads already miss.
    public func removeVariants(of key: String) {
        let prefix = Self.storageKey(key, variant: "")
        pending.withLockedValue { pending in
            for pendingKey in pending.keys where pendingKey.hasPrefix(prefix) { pending[pendingKey] = nil }
        }
        let original = files.name(for: key)
        // Reads check this set, so nothing stale is served while the files are being deleted.
        staleOriginals.withLockedValue { _ = $0.insert(original) }
        writeQueue.async { [self] in
            self.deleteVariants(ofOriginalNamed: original)
            self.staleOriginals.withLockedValue { _ = $0.remove(original) }
        }
    }

    /// Number of variants among the cached files (after the opening scan has finished).
    public var variantCount: Int {
        get async { await onWriteQueue { cache in cache.index.withLockedValue { $0.entries.keys.count(where: DiskFiles.isVariant) } } }
    }

    private static func storageKey(_ key: String, variant: String) -> String {
        key + "\u{0}variant:" + variant
    }

    private func deleteVariants(ofOriginalNamed original: String) {
        let names = index.withLockedValue { $0.entries.keys.filter { DiskFiles.isVariant($0, of: original) } }
        for name in names { delete(name) }
    }

    /// Removes every entry.
    public func removeAll() async {
        pending.withLockedValue { $0.removeAll() }
        await onWriteQueue { cache in
            for name in cache.index.withLockedValue({ Array($0.entries.keys) }) { cache.files.remove(name) }
            cache.index.withLockedValue { $0.removeAll() }
        }
    }

    /// Deletes least recently used entries until the total size is at most `size` bytes.
    public func trim(toSize size: Int) async {
        await onWriteQueue { cache in cache.evict(toFit: size) }
    }

    /// Waits until every entry handed to ``store(_:)`` so far is on disk.
    public func flush() async {
        await onWriteQueue { _ in }
    }

    /// Total size of the cached files in bytes (after the opening scan has finished).
    public var totalSize: Int {
        get async { await onWriteQueue { cache in cache.index.withLockedValue { $0.totalSize } } }
    }

    /// Number of cached files (after the opening scan has finished).
    public var count: Int {
        get async { await onWriteQueue { cache in cache.index.withLockedValue { $0.entries.count } } }
    }

    /// The file that holds (or would hold) the entry for `key`.
    public func fileURL(for key: String) -> URL {
        files.url(for: files.name(for: key))
    }

    // MARK: - Work on the queues

    /// Makes `entry` readable at once and writes it as `name` in the background.
    private func enqueueWrite(_ entry: CachedData, name: String) {
        pending.withLockedValue { $0[entry.key] = entry }
        writeQueue.async { [self] in
            self.write(entry, name: name)
            self.pending.withLockedValue { pending in
                if pending[entry.key] == entry { pending[entry.key] = nil }
            }
        }
    }

    private func onWriteQueue<T: Sendable>(_ work: @escaping @Sendable (DataCache) -> T) async -> T {
        await withCheckedContinuation { continuation in
            writeQueue.async { [self] in continuation.resume(returning: work(self)) }
        }
    }

    private func openDirectory() {
        do {
            try files.createDirectory()
        } catch {
            problems.report("cannot create the cache directory: \(error)", logger: logger)
            return
        }
        let scanned = files.scan()
        let cutoff = now().addingTimeInterval(-configuration.maximumAge.timeInterval)
        index.withLockedValue { index in
            for file in scanned { index.record(file.name, size: file.size, lastUsed: file.modified) }
        }
        for name in index.withLockedValue({ $0.unused(since: cutoff) }) { delete(name) }
        evict(toFit: configuration.sizeLimit)
        opened.withLockedValue { $0 = true }
    }

    private func read(_ key: String, name: String) -> CachedData? {
        if DiskFiles.isVariant(name), staleOriginals.withLockedValue({ $0.contains(String(name.prefix(64))) }) { return nil }
        guard let bytes = files.read(name) else {
            // A file the index knows but the disk lost (folder deleted by hand, or a cleaner):
            // forget it, so the size accounting matches the disk again.
            if index.withLockedValue({ $0.entries[name] != nil }) {
                writeQueue.async { [self] in
                    if !FileManager.default.fileExists(atPath: files.url(for: name).path) { index.withLockedValue { $0.remove(name) } }
                }
            }
            return nil
        }
        let entry: CachedData
        do {
            entry = try DiskEntryFormat.decode(bytes, expectedKey: key)
        } catch {
            logger.debug("dropping damaged cache file", metadata: ["file": "\(name)", "reason": "\(error)"])
            writeQueue.async { [self] in self.delete(name) }
            return nil
        }
        let date = now()
        let cutoff = date.addingTimeInterval(-configuration.maximumAge.timeInterval)
        let lastUsed = index.withLockedValue { $0.entries[name]?.lastUsed }
        if let lastUsed, lastUsed < cutoff {
            writeQueue.async { [self] in self.delete(name) }
            return nil
        }
        index.withLockedValue { $0.touch(name, at: date) }
        files.setModified(name, to: date)
        return entry
    }

    private func write(_ entry: CachedData, name: String) {
        do {
            let bytes = try DiskEntryFormat.encode(entry)
            guard bytes.count <= configuration.sizeLimit else { return }
            makeRoom(for: bytes.count, replacing: name)
            do {
                try files.writeAtomically(bytes, as: name)
            } catch DiskFiles.FileError.system(_, _, ENOSPC) {
                // The disk is fuller than the size limit allows for: give back a quarter of
                // what the cache holds and try once more, so the newest entry gets the room.
                problems.report("cannot write to the disk cache: its disk is full; evicting older entries to make room", logger: logger)
                evict(toFit: index.withLockedValue { $0.totalSize } / 4 * 3)
                try files.writeAtomically(bytes, as: name)
            }
            index.withLockedValue { $0.record(name, size: bytes.count, lastUsed: now()) }
            problems.recordSuccess()
        } catch {
            problems.report("cannot write to the disk cache: \(error)", logger: logger)
        }
    }

    private func makeRoom(for size: Int, replacing name: String) {
        let (total, existing) = index.withLockedValue { ($0.totalSize, $0.entries[name]?.size ?? 0) }
        guard total - existing + size > configuration.sizeLimit else { return }
        // Trim to 90% of the limit so that a full cache does not sort its index on every write.
        evict(toFit: max(0, configuration.sizeLimit / 10 * 9 - size))
    }

    private func evict(toFit size: Int) {
        for name in index.withLockedValue({ $0.victims(toFit: size) }) { delete(name) }
    }

    private func delete(_ name: String) {
        files.remove(name)
        index.withLockedValue { $0.remove(name) }
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

/// What the disk cache knows about its files without opening them: size and last use.
///
/// Last use is kept here, not read from the file system's atime (which `noatime` and
/// `relatime` mounts do not keep), and persisted as the file's mtime, which the cache sets
/// itself on every hit.
struct DiskIndex {
    struct Entry {
        var size: Int
        var lastUsed: Date
    }

    private(set) var entries: [String: Entry] = [:]
    private(set) var totalSize = 0

    mutating func record(_ name: String, size: Int, lastUsed: Date) {
        if let old = entries[name] { totalSize -= old.size }
        entries[name] = Entry(size: size, lastUsed: lastUsed)
        totalSize += size
    }

    mutating func touch(_ name: String, at date: Date) {
        entries[name]?.lastUsed = date
    }

    mutating func remove(_ name: String) {
        if let old = entries.removeValue(forKey: name) { totalSize -= old.size }
    }

    mutating func removeAll() {
        entries.removeAll()
        totalSize = 0
    }

    /// Names to delete, least recently used first, until the total is at most `size`.
    func victims(toFit size: Int) -> [String] {
        guard totalSize > size else { return [] }
        var remaining = totalSize
        var names: [String] = []
        for (name, entry) in entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) {
            guard remaining > size else { break }
            names.append(name)
            remaining -= entry.size
        }
        return names
    }

    /// Names not used since `date`.
    func unused(since date: Date) -> [String] {
        entries.compactMap { $0.value.lastUsed < date ? $0.key : nil }
    }
}
