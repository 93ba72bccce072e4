import NIOConcurrencyHelpers

/// A number of slots, a memory budget and a bounded queue for both, first come first served:
/// the pipeline admits decodes by the memory their headers say they will hold
/// (``DecodeMemory``), and `magpie proxy` admits requests to its processing slots. An entrant
/// that finds the queue full is turned away at once rather than waiting without bound; one that
/// is cancelled while waiting gives up its place. One costing more than the whole budget runs
/// when nothing else holds any of it, so it is never refused for its size here (the pixel limit
/// does that).
package final class Admission: Sendable {
    package enum Entry: Sendable {
        case admitted
        case queueFull
    }

    private struct Waiter {
        let id: UInt64
        let cost: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var running = 0
        var memory = 0
        /// Places in the queue taken, including by requests about to start waiting.
        var queued = 0
        var waiting: [Waiter] = []
        var nextID: UInt64 = 0
    }

    package let slots: Int
    package let queueLimit: Int
    package let memoryBudget: Int
    /// Told +1 when a request starts waiting and -1 when it stops, for a queue-length gauge.
    private let onQueueChange: @Sendable (Int) -> Void
    private let state = NIOLockedValueBox(State())

    package init(slots: Int = .max, queueLimit: Int = .max, memoryBudget: Int = .max, onQueueChange: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.slots = max(1, slots)
        self.queueLimit = max(0, queueLimit)
        self.memoryBudget = max(0, memoryBudget)
        self.onQueueChange = onQueueChange
    }

    /// Waits for a slot and `cost` bytes of the memory budget. `.admitted` must be followed by
    /// ``leave(cost:)`` with the same cost; a cancelled wait throws.
    package func enter(cost: Int = 0) async throws(CancellationError) -> Entry {
        enum Decision { case admitted, full, wait(UInt64) }
        let decision = state.withLockedValue { state -> Decision in
            if state.waiting.isEmpty, state.queued == 0, fits(cost, in: state) {
                state.running += 1
                state.memory += cost
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
                    let (cancelled, ready) = state.withLockedValue { state -> (Bool, [Waiter]) in
                        if Task.isCancelled {
                            state.queued -= 1
                            return (true, admitReady(&state))
                        }
                        // Slots or memory may have freed since the decision, with nobody to hand them to.
                        state.waiting.append(Waiter(id: id, cost: cost, continuation: continuation))
                        return (false, admitReady(&state))
                    }
                    if cancelled { continuation.resume(returning: false) }
                    for waiter in ready { waiter.continuation.resume(returning: true) }
                }
            } onCancel: {
                let (removed, ready) = state.withLockedValue { state -> (Waiter?, [Waiter]) in
                    guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return (nil, []) }
                    state.queued -= 1
                    let removed = state.waiting.remove(at: index)
                    // The leaver may have been what the ones behind it waited on.
                    return (removed, admitReady(&state))
                }
                removed?.continuation.resume(returning: false)
                for waiter in ready { waiter.continuation.resume(returning: true) }
            }
            guard admitted else { throw CancellationError() }
            return .admitted
        }
    }

    /// Frees a slot and `cost` bytes of the budget, handing them to the waiters in order.
    package func leave(cost: Int = 0) {
        let ready = state.withLockedValue { state -> [Waiter] in
            state.running -= 1
            state.memory -= cost
            return admitReady(&state)
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Slots in use, budget in use and queue places taken (for tests).
    package var usage: (running: Int, memory: Int, queued: Int) {
        state.withLockedValue { ($0.running, $0.memory, $0.queued) }
    }

    private func fits(_ cost: Int, in state: State) -> Bool {
        state.running < slots && (state.memory == 0 || cost <= memoryBudget - state.memory)
    }

    /// Admits waiters from the front of the queue while the first one fits.
    private func admitReady(_ state: inout State) -> [Waiter] {
        var ready: [Waiter] = []
        while let first = state.waiting.first, fits(first.cost, in: state) {
            state.waiting.removeFirst()
            state.queued -= 1
            state.running += 1
            state.memory += first.cost
            ready.append(first)
        }
        return ready
    }
}
