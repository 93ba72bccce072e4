public import Foundation
import NIOConcurrencyHelpers

/// What a pipeline reports to its observers: the life of every load, in order per load (what
/// SDWebImage posts as download start / receive response / stop / finish notifications).
public enum PipelineEvent: Sendable {
    /// A download started for the load `task` (after waiting for a queue slot).
    case started(task: UInt64, url: URL)
    /// The server's response head arrived.
    case response(task: UInt64, url: URL, status: Int, headers: [(name: String, value: String)])
    /// Body bytes received so far.
    case progress(task: UInt64, url: URL, received: Int, expected: Int?)
    /// The load delivered an image.
    case finished(task: UInt64, url: URL, bytes: Int, duration: Duration, source: ImageSource)
    /// The load was cancelled.
    case cancelled(task: UInt64, url: URL)
    /// The load failed.
    case failed(task: UInt64, url: URL, error: MagpieError)

    /// The load this event belongs to; ``ImageTask/id`` for loads started as tasks.
    public var task: UInt64 {
        switch self {
        case .started(let task, _), .response(let task, _, _, _), .progress(let task, _, _, _),
            .finished(let task, _, _, _, _), .cancelled(let task, _), .failed(let task, _, _):
            task
        }
    }
}

/// Keeps an observer registered; dropping it (or calling ``cancel()``) unregisters it.
public final class PipelineObservation: Sendable {
    private let cancellation: @Sendable () -> Void

    init(cancellation: @escaping @Sendable () -> Void) {
        self.cancellation = cancellation
    }

    /// Stops the observer from receiving further events.
    public func cancel() { cancellation() }

    deinit { cancellation() }
}

/// The pipeline's observers. Events are delivered synchronously on the thread that produced
/// them, so one load's events reach each observer in order.
final class PipelineObservers: Sendable {
    private struct State {
        var handlers: [UInt64: @Sendable (PipelineEvent) -> Void] = [:]
        var nextID: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    func add(_ handler: @escaping @Sendable (PipelineEvent) -> Void) -> PipelineObservation {
        let id = state.withLockedValue { state in
            state.nextID += 1
            state.handlers[state.nextID] = handler
            return state.nextID
        }
        return PipelineObservation { [weak self] in
            _ = self?.state.withLockedValue { $0.handlers.removeValue(forKey: id) }
        }
    }

    func send(_ event: PipelineEvent) {
        let handlers = state.withLockedValue { Array($0.handlers.values) }
        for handler in handlers { handler(event) }
    }
}
