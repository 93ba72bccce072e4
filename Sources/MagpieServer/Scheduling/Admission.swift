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
        /// Places in the queue taken, including by requests about to start waiting.
        var queued = 0
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
    }

    let slots: Int
    let queueLimit: Int
    /// Told +1 when a request starts waiting and -1 when it stops, for a queue-length gauge.
    private let onQueueChange: @Sendable (Int) -> Void
    private let state = NIOLockedValueBox(State())

    init(slots: Int, queueLimit: Int, onQueueChange: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.slots = max(1, slots)
        self.queueLimit = max(0, queueLimit)
        self.onQueueChange = onQueueChange
    }

    /// Waits for a slot. `.admitted` must be followed by ``leave()``; a cancelled wait throws.
    func enter() async throws(CancellationError) -> Entry {
        enum Decision { case admitted, full, wait(UInt64) }
        let decision = state.withLockedValue { state -> Decision in
            if state.running < slots {
                state.running += 1
                return .admitted
            }
            // The place is taken now, so concurrent arrivals cannot overfill the queue.
            guard state.queued < queueLimit else { return .full }
            state.queued += 1
            state.nextID += 1
            return .wait(state.nextID)
        }
        switch decision {
        case .admitted: return .admitted
        case .full: return .queueFull
        case .wait(let id):
            onQueueChange(1)
            defer { onQueueChange(-1) }
            let admitted = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let settled = state.withLockedValue { state -> Bool? in
                        if Task.isCancelled {
                            state.queued -= 1
                            return false
                        }
                        // A slot freed since the decision, with nobody waiting to hand it to.
                        if state.running < slots {
                            state.queued -= 1
                            state.running += 1
                            return true
                        }
                        state.waiting.append((id, continuation))
                        return nil
                    }
                    if let settled { continuation.resume(returning: settled) }
                }
            } onCancel: {
                let removed = state.withLockedValue { state -> CheckedContinuation<Bool, Never>? in
                    guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                    state.queued -= 1
                    return state.waiting.remove(at: index).continuation
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
            if !state.waiting.isEmpty {
                state.queued -= 1
                return state.waiting.removeFirst().continuation
            }
            state.running -= 1
            return nil
        }
        next?.resume(returning: true)
    }
}
