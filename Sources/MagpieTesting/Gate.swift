import NIOConcurrencyHelpers

/// Holds back responses until a test opens it, so a test decides exactly when a download
/// finishes instead of guessing with latencies.
public final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Lets every waiting and future response through.
    public func open() {
        let waiters = state.withLockedValue { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until the gate is open.
    public func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLockedValue { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}
