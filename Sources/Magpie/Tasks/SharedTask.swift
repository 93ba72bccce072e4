import Instrumentation
import NIOConcurrencyHelpers

/// One piece of work that any number of subscribers wait for.
///
/// The work starts with the first subscriber and runs once. Its priority is the highest of its
/// subscribers'. A subscriber that leaves gets ``MagpieError/cancelled`` at once without
/// disturbing the others; when the last one leaves, the work is cancelled, and through
/// Swift's task cancellation so is whatever it was waiting for (a download, a queue slot,
/// another shared task).
final class SharedTask<Value: Sendable>: Sendable {
    typealias Work = @Sendable (SharedTask<Value>) async throws(MagpieError) -> Value

    private struct Subscriber {
        var priority: ImageRequest.Priority
        var continuation: CheckedContinuation<Value, any Error>?
        var listener: WorkEvent.Listener?
    }

    private enum Phase {
        case idle
        /// The first subscriber is creating the Swift task; later ones must not start another.
        case starting
        case running(Task<Void, Never>)
        case finished(Result<Value, MagpieError>)
        /// Every subscriber left and the work was cancelled. A subscriber that found the task
        /// in a pool a moment before (the race a stress test found) starts the work again
        /// rather than receiving a cancellation it never asked for.
        case abandoned
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextID: UInt64 = 0
        var phase = Phase.idle
        /// Counts starts, so a cancelled run finishing late cannot end a newer one.
        var run: UInt64 = 0
        var priority = ImageRequest.Priority.veryLow
        var onPriorityChange: (@Sendable (ImageRequest.Priority) -> Void)?
        /// Dropped when the work finishes: it captures what the work needed (requests, other
        /// tasks), and whoever still holds this task for its result must not keep those alive.
        var work: Work?
        /// Called once with the work's result, or with `.cancelled` when it is abandoned.
        var onEnd: [@Sendable (Result<Value, MagpieError>) -> Void] = []

        mutating func takeEndHandlers() -> [@Sendable (Result<Value, MagpieError>) -> Void] {
            defer { onEnd = [] }
            return onEnd
        }
    }

    private let state: NIOLockedValueBox<State>
    private let onAbandon: @Sendable (SharedTask<Value>) -> Void
    private let workContext = NIOLockedValueBox<InstrumentationContext?>(nil)
    /// What the work spent waiting, for its stage to take from its time.
    let clock = StageClock()

    /// The trace context the work runs in (its stage's span), for requests that join it to
    /// link to; `nil` until the work has started.
    var traceContext: InstrumentationContext? {
        get { workContext.withLockedValue { $0 } }
        set { workContext.withLockedValue { $0 = newValue } }
    }

    /// `onAbandon` runs when every subscriber left running work; a pool forgets the task then
    /// (and, from the work itself, when it ends).
    init(work: @escaping Work, onAbandon: @escaping @Sendable (SharedTask<Value>) -> Void) {
        self.state = NIOLockedValueBox(State(work: work))
        self.onAbandon = onAbandon
    }

    // MARK: - Subscribers

    /// Joins the work and waits for its value, with no priority and no events. Cancelling the
    /// calling task leaves the work, as below.
    func value() async throws(MagpieError) -> Value {
        try await value(priority: .normal)
    }

    /// Joins the work (starting it if this is the first subscriber) and waits for its value;
    /// `listener` hears its events (none without one). Cancelling the calling task leaves the
    /// work and throws ``MagpieError/cancelled``.
    func value(
        priority: ImageRequest.Priority,
        registered: (Subscription) -> Void = { _ in },
        listener: WorkEvent.Listener? = nil
    ) async throws(MagpieError) -> Value {
        let id = subscribe(priority: priority, listener: listener)
        registered(Subscription(task: self, id: id))
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let finished = state.withLockedValue { state -> Result<Value, MagpieError>? in
                        if case .finished(let result) = state.phase { return result }
                        guard state.subscribers[id] != nil else { return .failure(.cancelled) }
                        state.subscribers[id]?.continuation = continuation
                        return nil
                    }
                    if let finished { continuation.resume(with: finished) }
                }
            } onCancel: {
                leave(id)
            }
        } catch let error as MagpieError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// A subscriber's handle for changing its priority while it waits.
    struct Subscription: Sendable {
        fileprivate let task: SharedTask<Value>
        fileprivate let id: UInt64

        func setPriority(_ priority: ImageRequest.Priority) {
            task.setPriority(priority, for: id)
        }
    }

    private func subscribe(priority: ImageRequest.Priority, listener: WorkEvent.Listener?) -> UInt64 {
        let (id, start, changed) = state.withLockedValue { state -> (UInt64, (run: UInt64, work: Work)?, Bool) in
            state.nextID += 1
            let id = state.nextID
            state.subscribers[id] = Subscriber(priority: priority, continuation: nil, listener: listener)
            var start: (UInt64, Work)?
            switch state.phase {
            case .idle, .abandoned:
                // Only a finished task has dropped its work, and it never starts again.
                guard let work = state.work else { break }
                state.phase = .starting
                state.run += 1
                start = (state.run, work)
            case .starting, .running, .finished:
                break
            }
            return (id, start, Self.updatePriority(&state))
        }
        if changed { publishPriority() }
        if let start { self.start(start.run, work: start.work) }
        return id
    }

    private func start(_ run: UInt64, work: @escaping Work) {
        let task = Task { [self] in
            let result: Result<Value, MagpieError>
            do throws(MagpieError) {
                result = .success(try await work(self))
            } catch {
                result = .failure(error)
            }
            finish(with: result, run: run)
        }
        let abandoned = state.withLockedValue { state -> Bool in
            guard state.run == run else { return true }
            switch state.phase {
            case .starting:
                state.phase = .running(task)
                return false
            case .finished:
                return false  // Already done; nothing to cancel.
            case .idle, .running, .abandoned:
                return true
            }
        }
        // Everyone left while the task was being created.
        if abandoned { task.cancel() }
    }

    private func finish(with result: Result<Value, MagpieError>, run: UInt64) {
        let ended = state.withLockedValue { state -> ([CheckedContinuation<Value, any Error>], [@Sendable (Result<Value, MagpieError>) -> Void])? in
            // The work may end before start() has even recorded its task (still `.starting`).
            guard state.run == run else { return nil }
            switch state.phase {
            case .starting, .running: break
            case .idle, .finished, .abandoned: return nil
            }
            state.phase = .finished(result)
            let waiting = state.subscribers.values.compactMap(\.continuation)
            state.subscribers.removeAll()
            // What the work captured and its priority hook (which holds the task it depended
            // on, and through it that task's result) are no longer needed.
            state.work = nil
            state.onPriorityChange = nil
            return (waiting, state.takeEndHandlers())
        }
        guard let (continuations, handlers) = ended else { return }
        for continuation in continuations { continuation.resume(with: result) }
        for handler in handlers { handler(result) }
    }

    private func leave(_ id: UInt64) {
        typealias Left = (subscriber: Subscriber?, abandoned: Task<Void, Never>??, changed: Bool, handlers: [@Sendable (Result<Value, MagpieError>) -> Void])
        let left = state.withLockedValue { state -> Left in
            guard let subscriber = state.subscribers.removeValue(forKey: id) else { return (nil, nil, false, []) }
            guard state.subscribers.isEmpty else { return (subscriber, nil, Self.updatePriority(&state), []) }
            // The work sets its hook again if a late subscriber restarts it.
            state.onPriorityChange = nil
            switch state.phase {
            case .running(let task):
                state.phase = .abandoned
                return (subscriber, .some(task), false, state.takeEndHandlers())
            case .starting:
                // start() sees the change and cancels the task it made.
                state.phase = .abandoned
                return (subscriber, .some(nil), false, state.takeEndHandlers())
            case .idle, .finished, .abandoned:
                return (subscriber, nil, false, [])
            }
        }
        if left.changed { publishPriority() }
        left.subscriber?.continuation?.resume(throwing: MagpieError.cancelled)
        if let abandoned = left.abandoned {
            onAbandon(self)
            abandoned?.cancel()
        }
        for handler in left.handlers { handler(.failure(.cancelled)) }
    }

    private func setPriority(_ priority: ImageRequest.Priority, for id: UInt64) {
        let changed = state.withLockedValue { state -> Bool in
            guard state.subscribers[id] != nil else { return false }
            state.subscribers[id]?.priority = priority
            return Self.updatePriority(&state)
        }
        if changed { publishPriority() }
    }

    /// Recomputes the task's priority; says whether it changed, to be published outside the lock.
    private static func updatePriority(_ state: inout State) -> Bool {
        let highest = state.subscribers.values.map(\.priority).max() ?? .veryLow
        guard highest != state.priority else { return false }
        state.priority = highest
        return true
    }

    private func publishPriority() {
        deliverPriority { state.withLockedValue { state in state.onPriorityChange.map { (state.priority, $0) } } }
    }

    // MARK: - For the work

    /// The highest priority among the current subscribers.
    var priority: ImageRequest.Priority { state.withLockedValue { $0.priority } }

    /// Calls `handler` with the task's priority now and whenever it changes from now on, so a
    /// change made while the caller was reading ``priority`` is not lost.
    func onPriorityChange(_ handler: @escaping @Sendable (ImageRequest.Priority) -> Void) {
        state.withLockedValue { $0.onPriorityChange = handler }
        publishPriority()
    }

    /// Sends an event to every current subscriber that listens: through the stages that relay
    /// it, in this file, to whoever asked for it at the end; nowhere when nobody did.
    func send(_ event: WorkEvent) {
        let listeners = state.withLockedValue { $0.subscribers.values.compactMap(\.listener) }
        for listener in listeners {
            switch listener {
            case .handler(let handle):
                handle(event)
            case .relay(let target, let kinds, let others):
                if kinds.contains(event.kind) { target.send(event) } else { others?(event) }
            }
        }
    }

    /// Calls `handler` once when the work ends: with its result, or `.cancelled` when every
    /// subscriber left. At once if it has ended.
    func whenEnded(_ handler: @escaping @Sendable (Result<Value, MagpieError>) -> Void) {
        let ended = state.withLockedValue { state -> Result<Value, MagpieError>? in
            switch state.phase {
            case .finished(let result): return result
            case .abandoned: return .failure(.cancelled)
            case .idle, .starting, .running:
                state.onEnd.append(handler)
                return nil
            }
        }
        if let ended { handler(ended) }
    }

    /// Number of subscribers still waiting.
    var subscriberCount: Int { state.withLockedValue { $0.subscribers.count } }
}

/// Something that waits for shared work and whose priority the work must follow: a pipeline
/// stage waiting for the stage before it, or an ``ImageTask`` waiting for its load.
protocol WorkDependent: Sendable {
    var priority: ImageRequest.Priority { get }
    /// Calls `handler` with the dependent's priority now and whenever it changes from now on.
    func followPriority(_ handler: @escaping @Sendable (ImageRequest.Priority) -> Void)
    /// The dependent waited `duration` for the work: not its own time.
    func waited(_ duration: Duration)
    /// The work the dependent waited for failed with `error`.
    func dependencyFailed(_ error: MagpieError)
}

extension SharedTask: WorkDependent {
    func followPriority(_ handler: @escaping @Sendable (ImageRequest.Priority) -> Void) {
        onPriorityChange(handler)
    }

    func waited(_ duration: Duration) {
        clock.waited(duration)
    }

    func dependencyFailed(_ error: MagpieError) {
        clock.upstreamFailed(error)
    }
}

extension SharedTask {
    /// The one way a stage depends on another: joins this work at `dependent`'s priority and
    /// keeps following it. Cancellation needs no wiring: the dependent's work runs in a Swift
    /// task, and cancelling it makes this call leave.
    func value(for dependent: some WorkDependent, listener: WorkEvent.Listener? = nil) async throws(MagpieError) -> Value {
        let start = ContinuousClock.now
        defer { dependent.waited(ContinuousClock.now - start) }
        do {
            return try await value(
                priority: dependent.priority,
                registered: { subscription in dependent.followPriority { subscription.setPriority($0) } },
                listener: listener)
        } catch {
            dependent.dependencyFailed(error)
            throw error
        }
    }

    /// Waits for this work as the work `next` (a later stage) depends on it, passing the events
    /// of `kinds` on to `next`'s subscribers and handing the others to `others`.
    func value<Next>(
        relayingTo next: SharedTask<Next>, passing kinds: WorkEvent.Kinds, others: (@Sendable (WorkEvent) -> Void)? = nil
    ) async throws(MagpieError) -> Value {
        try await value(for: next, listener: .relay(to: next, passing: kinds, others: others))
    }
}

/// What shared work tells its subscribers while it runs: the public events of a load, the
/// body received so far (for requests that asked for progressive previews), and previews:
/// non-final values that each later stage transforms like the final one.
enum WorkEvent: Sendable {
    case task(ImageTask.Event)
    /// The bytes received so far, sent a few times during a download (see `DataLoader`).
    case partialBody([UInt8])
    /// A lower-quality image made from part of the body, after the stages so far.
    case preview(ImageContainer)

    /// Which events a relaying stage passes on (``Listener/relay(to:passing:others:)``).
    struct Kinds: OptionSet, Sendable {
        let rawValue: UInt8
        static let task = Kinds(rawValue: 1)
        static let partialBody = Kinds(rawValue: 2)
        static let preview = Kinds(rawValue: 4)
    }

    /// The kind this event is, for a relay to match against what it passes on.
    var kind: Kinds {
        switch self {
        case .task: .task
        case .partialBody: .partialBody
        case .preview: .preview
        }
    }

    /// What a subscriber does with the work's events.
    enum Listener: Sendable {
        /// Hands each event to a closure: an ``ImageTask`` publishing them.
        case handler(@Sendable (WorkEvent) -> Void)
        /// Passes events of `kinds` on to the subscribers of `target` (the stage after this
        /// work), so an event nobody listens for stops where the listeners end; hands the
        /// others to `others` (a stage that makes previews of them).
        case relay(to: any WorkEventSending, passing: Kinds, others: (@Sendable (WorkEvent) -> Void)?)
    }
}

/// Shared work whose subscribers a relayed event goes on to.
protocol WorkEventSending: Sendable {
    func send(_ event: WorkEvent)
}

extension SharedTask: WorkEventSending {}

/// Hands a priority kept under a lock to whoever follows it, outside that lock.
///
/// `read` returns the current priority and its follower (under the lock). Deliveries from two
/// threads can cross, so a stale value could arrive after a newer one; each delivery therefore
/// reads again afterwards and sends once more if the value moved on. Whatever order crossing
/// deliveries take, the last one to arrive carries the current priority. Followers must accept
/// the same value twice.
func deliverPriority(
    _ read: () -> (priority: ImageRequest.Priority, follower: @Sendable (ImageRequest.Priority) -> Void)?
) {
    var sent: ImageRequest.Priority?
    while let (priority, follower) = read(), priority != sent {
        follower(priority)
        sent = priority
    }
}
