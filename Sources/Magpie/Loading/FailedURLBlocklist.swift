import NIOConcurrencyHelpers

/// URLs that failed for a reason retrying will not fix, kept for a while so a page full of
/// broken links does not hit the server again on every view; and URLs whose server asked, with
/// `Retry-After`, not to be asked again before a given time.
final class FailedURLBlocklist: Sendable {
    private let entries = NIOLockedValueBox([String: ContinuousClock.Instant]())
    private let duration: Duration
    private let now: @Sendable () -> ContinuousClock.Instant

    init(duration: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.duration = duration
        self.now = now
    }

    func contains(_ key: String) -> Bool {
        let instant = now()
        return entries.withLockedValue { entries in
            guard let until = entries[key] else { return false }
            if until > instant { return true }
            entries[key] = nil
            return false
        }
    }

    func record(_ error: MagpieError, for key: String) {
        guard !error.isTransient, duration > .zero else { return }
        let until = now() + duration
        entries.withLockedValue { $0[key] = until }
    }

    /// Blocks `key` for `wait`, as a server's `Retry-After` asks, even for a transient failure.
    /// A blocklist switched off (duration zero) stays off.
    func block(_ key: String, for wait: Duration) {
        guard duration > .zero else { return }
        let until = now() + wait
        entries.withLockedValue { entries in entries[key] = max(entries[key] ?? until, until) }
    }

    func remove(_ key: String) {
        entries.withLockedValue { $0[key] = nil }
    }

    func removeAll() {
        entries.withLockedValue { $0.removeAll() }
    }
}
