import Foundation
import Magpie
import NIOConcurrencyHelpers

/// Encoded results by source and variant: in memory (LRU, bounded in bytes) and, when the
/// pipeline has a disk cache, beside the original there as a variant, so new bytes for the
/// source retire them with it.
final class ResultCache: Sendable {
    enum Tier: String, Sendable {
        case memory, disk
    }

    struct Key: Sendable, Hashable {
        /// The pipeline's key of the original.
        let source: String
        /// What is made of it and how it is encoded: derived, never listed by hand, from the
        /// plan's thumbnail and processor identifiers, the format choice and the quality.
        let variant: String

        var variantName: String { "proxy|" + variant }

        /// The key of the result `plan` makes of `source`, encoded as `format` (with what the
        /// client accepts, for `auto`) at `quality`.
        init(source: String, plan: RenderPlan, format: ProxyOptions.Format?, accepted: FormatNegotiation.Accepted, quality: Int) {
            let formatKey =
                switch format {
                case .auto: "auto:" + accepted.key
                case let format?: format.name
                case nil: "source"
                }
            self.source = source
            variant = "\(plan.variant)|f:\(formatKey)|q:\(quality)"
        }
    }

    private let memory = NIOLockedValueBox(LRUStore<Key, ProxyResult>())
    private let memoryLimit: Int
    private let disk: (any DataCaching)?
    private let timeToLive: Duration
    private let now: @Sendable () -> Date

    init(memoryLimit: Int, disk: (any DataCaching)?, timeToLive: Duration, now: @escaping @Sendable () -> Date) {
        self.memoryLimit = memoryLimit
        self.disk = disk
        self.timeToLive = timeToLive
        self.now = now
    }

    /// The result kept in memory, if fresh.
    func memoryResult(for key: Key) -> ProxyResult? {
        guard let hit = memory.withLockedValue({ $0.value(for: key) }), isFresh(hit) else { return nil }
        return hit
    }

    func result(for key: Key) async -> (ProxyResult, Tier)? {
        if let hit = memoryResult(for: key) { return (hit, .memory) }
        guard let disk, disk.containsVariant(for: key.source, variant: key.variantName),
            let entry = await disk.variantEntry(for: key.source, variant: key.variantName),
            let result = ProxyResult(envelope: entry.data), isFresh(result)
        else { return nil }
        keepInMemory(result, for: key)
        return (result, .disk)
    }

    func store(_ result: ProxyResult, for key: Key) {
        keepInMemory(result, for: key)
        disk?.storeVariant(result.envelope, for: key.source, variant: key.variantName)
    }

    private func keepInMemory(_ result: ProxyResult, for key: Key) {
        guard result.body.count <= memoryLimit / 8 else { return }
        memory.withLockedValue { store in
            store.insert(result, cost: result.body.count, expiry: nil, for: key)
            store.trim(toCost: memoryLimit, count: .max)
        }
    }

    private func isFresh(_ result: ProxyResult) -> Bool {
        now().timeIntervalSince(result.created) < Double(timeToLive.components.seconds)
    }
}
