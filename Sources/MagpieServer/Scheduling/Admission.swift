import NIOConcurrencyHelpers

/// A fixed number of processing slots and a bounded queue for them, first come first served.
/// A request that finds the queue full is turned away at once rather than waiting without
/// bound; one that is cancelled while waiting gives up its place.
final class Admission: Sendable {
    enum Entry: Sendable {
        case admitted
        case queueFull
    }

    private struct State {
        var running = 0
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
    }

    let slots: Int
    let queueLimit: Int
    private let state = NIOLockedValueBox(State())

    init(slots: Int, queueLimit: Int) {
        self.slots = max(1, slots)
        self.queueLimit = max(0, queueLimit)
    }

    /// Waits for a slot. `.admitted` must be followed by ``leave()``; a cancelled wait throws.
    func enter() async throws(CancellationError) -> Entry {
        enum Decision { case admitted, full, wait(UInt64) }
        let decision = state.withLockedValue { state -> Decision in
            if state.running < slots {
                state.running += 1
                return .admitted
            }
            guard state.waiting.count < queueLimit else { return .full }
            state.nextID += 1
            return .wait(state.nextID)
        }
        switch decision {
        case .admitted: return .admitted
        case .full: return .queueFull
        case .wait(let id):
            let admitted = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let cancelled = state.withLockedValue { state in
                        if Task.isCancelled { return true }
                        state.waiting.append((id, continuation))
                        return false
                    }
                    if cancelled { continuation.resume(returning: false) }
                }
            } onCancel: {
                let removed = state.withLockedValue { state in
                    state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0).continuation }
                }
                removed?.resume(returning: false)
            }
            guard admitted else { throw CancellationError() }
            return .admitted
        }
    }

    /// Frees a slot, handing it to the longest waiter if any.
    func leave() {
        let next = state.withLockedValue { state -> CheckedContinuation<Bool, Never>? in
            if !state.waiting.isEmpty { return state.waiting.removeFirst().continuation }
            state.running -= 1
            return nil
        }
        next?.resume(returning: true)
    }

    /// Slots in use and requests waiting.
    var counts: (running: Int, waiting: Int) {
        state.withLockedValue { ($0.running, $0.waiting.count) }
    }
}
