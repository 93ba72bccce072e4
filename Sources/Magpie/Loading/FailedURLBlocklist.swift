import NIOConcurrencyHelpers

/// URLs that failed for a reason retrying will not fix, kept for a while so a page full of
/// broken links does not hit the server again on every view; and URLs whose server asked, with
/// `Retry-After`, not to be asked again before a given time.
///
/// Expired entries are swept whenever the list has doubled since the last sweep, so a crawler
/// that meets millions of broken URLs holds only those still blocked.
final class FailedURLBlocklist: Sendable {
    private struct Entries {
        var until: [String: ContinuousClock.Instant] = [:]
        var sweepAt = 1024

        mutating func insert(_ key: String, until instant: ContinuousClock.Instant, now: ContinuousClock.Instant) {
            until[key] = max(until[key] ?? instant, instant)
            guard until.count >= sweepAt else { return }
            until = until.filter { $0.value > now }
            sweepAt = max(1024, until.count * 2)
        }
    }

    private let entries = NIOLockedValueBox(Entries())
    private let duration: Duration
    private let now: @Sendable () -> ContinuousClock.Instant

    init(duration: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.duration = duration
        self.now = now
    }

    func contains(_ key: String) -> Bool {
        let instant = now()
        return entries.withLockedValue { entries in
            guard let until = entries.until[key] else { return false }
            if until > instant { return true }
            entries.until[key] = nil
            return false
        }
    }

    func record(_ error: MagpieError, for key: String) {
        guard !error.isTransient, duration > .zero else { return }
        // The refusal comes from the request's rules, not the URL: another request for the same
        // bytes may carry other rules, and refusing again costs no connection.
        if case .sourceNotAllowed = error { return }
        let instant = now()
        entries.withLockedValue { $0.insert(key, until: instant + duration, now: instant) }
    }

    /// Blocks `key` for `wait`, as a server's `Retry-After` asks, even for a transient failure.
    /// A blocklist switched off (duration zero) stays off.
    func block(_ key: String, for wait: Duration) {
        guard duration > .zero else { return }
        let instant = now()
        entries.withLockedValue { $0.insert(key, until: instant + wait, now: instant) }
    }

    func remove(_ key: String) {
        entries.withLockedValue { $0.until[key] = nil }
    }

    /// Entries held, expired ones not yet swept included.
    var count: Int { entries.withLockedValue { $0.until.count } }

    func removeAll() {
        entries.withLockedValue { $0 = Entries() }
    }
}
