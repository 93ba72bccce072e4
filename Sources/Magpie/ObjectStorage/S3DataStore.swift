import AsyncHTTPClient
import Foundation
import Logging
import NIOConcurrencyHelpers

/// Originals and variants in a bucket (``SharedStore``): the far end of the pipeline's stores,
/// read when memory and the disk miss. Never fails a load: a read that fails is a miss, a
/// write that fails is logged, and after a failure the store is left alone for a while.
final class S3DataStore: OriginalStoring, VariantStoring {
    private let settings: SharedStore
    private let objects: S3ObjectClient
    private let prefix: String
    private let recorder: PipelineRecorder
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let state = NIOLockedValueBox(State())

    private struct State {
        /// Until when the store is left alone after failing.
        var pausedUntil: ContinuousClock.Instant?
        var pendingWrites = 0
        var pendingBytes = 0
        var flushes: [CheckedContinuation<Void, Never>] = []
    }

    init(
        settings: SharedStore, client: HTTPClient, recorder: PipelineRecorder, logger: Logger, now: @escaping @Sendable () -> Date,
        clock: @escaping @Sendable () -> ContinuousClock.Instant
    ) {
        self.settings = settings
        var objects = S3ObjectClient(endpoint: settings.endpoint, client: client)
        objects.timeout = settings.timeout
        self.objects = objects
        prefix = settings.prefix.isEmpty || settings.prefix.hasSuffix("/") ? settings.prefix : settings.prefix + "/"
        self.recorder = recorder
        self.logger = logger
        self.now = now
        self.clock = clock
    }

    // MARK: - Originals

    func entry(for key: String) async -> CachedData? {
        // An original's freshness is the origin's to judge (the pipeline revalidates it).
        await read(originalName(key), key: key, entry: .original, expires: false)
    }

    func store(_ entry: CachedData) {
        // Replaced, not written once: a revalidated original comes back with new validators.
        write(entry.data, name: originalName(entry.key), key: entry.key, entry: .original, metadata: entry.metadata, once: false)
    }

    func removeEntry(for key: String) async {
        await delete(originalName(key))
        await removeVariants(of: key)
    }

    // MARK: - Variants

    func variantEntry(for key: String, variant: String) async -> CachedData? {
        await read(variantName(key, variant: variant), key: Self.variantKey(key, variant: variant), entry: .variant, expires: true)
    }

    func storeVariant(_ bytes: [UInt8], for key: String, variant: String, metadata: HTTPMetadata) {
        write(
            bytes, name: variantName(key, variant: variant), key: Self.variantKey(key, variant: variant), entry: .variant, metadata: metadata,
            once: true)
    }

    func removeVariant(for key: String, variant: String) async {
        await delete(variantName(key, variant: variant))
    }

    func removeVariants(of key: String) async {
        guard let names = await attempt(counting: StoreSpan.counting(recorder), { () throws(MagpieError) in
            try await objects.keys(bucket: settings.bucket, prefix: variantFolder(key), limit: 10_000)
        }) else { return }
        for name in names { await delete(name) }
    }

    func flush() async {
        await withCheckedContinuation { continuation in
            let done = state.withLockedValue { state in
                if state.pendingWrites == 0 { return true }
                state.flushes.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    // MARK: - Names

    private func originalName(_ key: String) -> String {
        prefix + "originals/" + DiskEntryFormat.sha256Hex(key)
    }

    private func variantFolder(_ key: String) -> String {
        prefix + "variants/" + DiskEntryFormat.sha256Hex(key) + "/"
    }

    private func variantName(_ key: String, variant: String) -> String {
        variantFolder(key) + DiskEntryFormat.sha256Hex(variant)
    }

    /// What a variant's metadata names, so a read can tell it from another's.
    private static func variantKey(_ key: String, variant: String) -> String {
        key + " " + variant
    }

    // MARK: - Reads and writes

    private func read(_ name: String, key: String, entry kind: StoreSpan.Entry, expires: Bool) async -> CachedData? {
        await StoreSpan.run("magpie.shared_store.get", entry: kind, recorder: recorder) { outcomes in
            guard let object = await attempt(counting: outcomes, { () throws(MagpieError) in
                try await objects.get(bucket: settings.bucket, key: name, limit: settings.largestObject)
            }) else { return nil }
            guard let object else {
                outcomes.record(.miss)
                return nil
            }
            guard let entry = StoredObjectMetadata.entry(key: key, headers: object.headers, body: object.body) else {
                // A torn upload, bit rot, or a hand-made object: made again, and it must be
                // removable for the new one to be written once.
                outcomes.record(.damaged)
                logger.warning("removing a damaged object from the shared store", metadata: ["object": "\(name)"])
                await delete(name)
                return nil
            }
            if expires, let freshUntil = entry.metadata.freshUntil, freshUntil <= now() {
                outcomes.record(.expired)
                await delete(name)
                return nil
            }
            outcomes.record(.hit)
            outcomes.found(entry)
            return entry
        }
    }

    private func write(_ bytes: [UInt8], name: String, key: String, entry kind: StoreSpan.Entry, metadata: HTTPMetadata, once: Bool) {
        let outcomes = StoreSpan.counting(recorder)
        guard !isPaused() else {
            outcomes.record(.skipped)
            return
        }
        let admitted = state.withLockedValue { state in
            guard state.pendingWrites < settings.maximumPendingWrites, state.pendingBytes + bytes.count <= settings.maximumPendingBytes else {
                return false
            }
            state.pendingWrites += 1
            state.pendingBytes += bytes.count
            return true
        }
        guard admitted else {
            outcomes.record(.dropped)
            return
        }
        let (objects, bucket) = (objects, settings.bucket)
        // Hashed in the background, not on the request's way: the checksum is also the payload
        // hash the upload is signed with. The task inherits the asking stage's trace context.
        Task {
            defer { writeFinished(bytes: bytes.count) }
            await StoreSpan.run("magpie.shared_store.put", entry: kind, recorder: recorder) { outcomes in
                let checksum = DiskEntryFormat.sha256Hex(bytes)
                guard let fields = StoredObjectMetadata.fields(key: key, checksum: checksum, metadata: metadata) else {
                    outcomes.record(.dropped)
                    logger.debug("not storing an object whose metadata exceeds the store's limit", metadata: ["object": "\(name)"])
                    return
                }
                let outcome = await attempt(counting: outcomes) { () throws(MagpieError) in
                    try await objects.put(
                        bytes, bucket: bucket, key: name, contentType: metadata.contentType, metadata: fields, once: once, sha256: checksum)
                }
                switch outcome {
                case .written?: outcomes.record(.written)
                case .alreadyThere?: outcomes.record(.alreadyThere)
                case nil: break
                }
            }
        }
    }

    private func writeFinished(bytes: Int) {
        let waiting = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.pendingWrites -= 1
            state.pendingBytes -= bytes
            guard state.pendingWrites == 0 else { return [] }
            defer { state.flushes = [] }
            return state.flushes
        }
        for continuation in waiting { continuation.resume() }
    }

    private func delete(_ name: String) async {
        _ = await attempt(counting: StoreSpan.counting(recorder)) { () throws(MagpieError) in
            try await objects.delete(bucket: settings.bucket, key: name)
        }
    }

    /// Runs one request to the store unless it is paused; a failure pauses it. `nil` when not
    /// run or failed.
    private func attempt<T: Sendable>(counting outcomes: StoreSpan, _ request: () async throws(MagpieError) -> T) async -> T? {
        guard !isPaused() else {
            outcomes.record(.skipped)
            return nil
        }
        do {
            let result = try await request()
            resumeIfPaused()
            return result
        } catch .cancelled {
            return nil
        } catch .responseTooLarge {
            // One object too large says nothing about the store.
            outcomes.record(.miss)
            return nil
        } catch {
            outcomes.record(.failed)
            pause(after: error)
            return nil
        }
    }

    private func isPaused() -> Bool {
        guard let until = state.withLockedValue({ $0.pausedUntil }) else { return false }
        return clock() < until
    }

    private func pause(after error: MagpieError) {
        let first = state.withLockedValue { state in
            defer { state.pausedUntil = clock() + settings.pauseAfterFailure }
            return state.pausedUntil == nil
        }
        // Logged when it starts failing, not once per request while it stays down.
        if first {
            logger.error(
                "the shared store failed; loads go on without it, and it is tried again in \(settings.pauseAfterFailure)",
                metadata: ["bucket": "\(settings.bucket)", "error": "\(error)"])
        }
    }

    private func resumeIfPaused() {
        let wasPaused = state.withLockedValue { state in
            defer { state.pausedUntil = nil }
            return state.pausedUntil != nil
        }
        if wasPaused { logger.notice("the shared store answers again", metadata: ["bucket": "\(settings.bucket)"]) }
    }
}
