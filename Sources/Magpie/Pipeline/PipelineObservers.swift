import NIOConcurrencyHelpers

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
