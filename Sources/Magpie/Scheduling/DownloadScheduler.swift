import NIOConcurrencyHelpers

/// Bounded download concurrency with priorities that can change while queued.
///
/// A download asks for a slot with ``acquire(_:)`` and gives it back with ``release()``.
/// Waiting downloads start highest priority first, and within one priority first-in first-out
/// or last-in first-out.
final class DownloadScheduler: Sendable {
    /// Which of two waiting downloads of equal priority starts first.
    enum Order: Sendable {
        case fifo, lifo
    }

    final class Ticket: Sendable {
        let id: UInt64
        fileprivate init(id: UInt64) { self.id = id }
    }

    private struct Waiter {
        var priority: ImageRequest.Priority
        let sequence: UInt64
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private struct State {
        var running = 0
        var nextID: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var cancelled: Set<UInt64> = []
        var arrivals: UInt64 = 0
    }

    let maximumConcurrent: Int
    let order: Order
    private let state = NIOLockedValueBox(State())

    init(maximumConcurrent: Int, order: Order) {
        precondition(maximumConcurrent > 0, "at least one download must be able to run")
        self.maximumConcurrent = maximumConcurrent
        self.order = order
    }

    /// A place in the FIFO/LIFO order, taken when a request arrives: the ticket made later
    /// (after cache lookups that finish in any order) keeps the request's place.
    func arrival() -> UInt64 {
        state.withLockedValue { state in
            state.arrivals += 1
            return state.arrivals
        }
    }

    func makeTicket(priority: ImageRequest.Priority, arrival: UInt64) -> Ticket {
        state.withLockedValue { state in
            state.nextID += 1
            let ticket = Ticket(id: state.nextID)
            state.waiters[ticket.id] = Waiter(priority: priority, sequence: arrival, continuation: nil)
            return ticket
        }
    }

    /// Waits for a slot. Throws `CancellationError` if the calling task is cancelled first,
    /// and then the ticket leaves the queue without taking a slot.
    func acquire(_ ticket: Ticket) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let startNow: Bool? = state.withLockedValue { state in
                    if state.cancelled.remove(ticket.id) != nil {
                        state.waiters[ticket.id] = nil
                        return nil
                    }
                    if state.running < maximumConcurrent {
                        state.waiters[ticket.id] = nil
                        state.running += 1
                        return true
                    }
                    state.waiters[ticket.id]?.continuation = continuation
                    return false
                }
                switch startNow {
                case nil: continuation.resume(throwing: CancellationError())
                case true?: continuation.resume()
                case false?: break
                }
            }
        } onCancel: {
            let continuation = state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
                guard let waiter = state.waiters.removeValue(forKey: ticket.id) else { return nil }
                if waiter.continuation == nil { state.cancelled.insert(ticket.id) }
                return waiter.continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Gives a slot back and starts the next waiting download, if any.
    func release() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
            state.running -= 1
            return popNext(&state)
        }
        next?.resume()
    }

    /// Changes the priority of a waiting ticket; a running one is unaffected.
    func setPriority(_ priority: ImageRequest.Priority, for ticket: Ticket) {
        state.withLockedValue { $0.waiters[ticket.id]?.priority = priority }
    }

    /// Downloads running and waiting, for tests and diagnostics.
    var counts: (running: Int, waiting: Int) {
        state.withLockedValue { ($0.running, $0.waiters.values.filter { $0.continuation != nil }.count) }
    }

    private func popNext(_ state: inout State) -> CheckedContinuation<Void, any Error>? {
        guard state.running < maximumConcurrent,
            let id = bestWaiter(in: state)
        else { return nil }
        let waiter = state.waiters.removeValue(forKey: id)
        state.running += 1
        return waiter?.continuation
    }

    private func bestWaiter(in state: State) -> UInt64? {
        var best: (id: UInt64, waiter: Waiter)?
        for (id, waiter) in state.waiters where waiter.continuation != nil {
            guard let current = best else {
                best = (id, waiter)
                continue
            }
            if waiter.priority != current.waiter.priority {
                if waiter.priority > current.waiter.priority { best = (id, waiter) }
            } else if order == .fifo ? waiter.sequence < current.waiter.sequence : waiter.sequence > current.waiter.sequence {
                best = (id, waiter)
            }
        }
        return best?.id
    }
}
