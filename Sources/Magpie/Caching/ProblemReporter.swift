import Logging
import NIOConcurrencyHelpers

/// Logs a persistent problem once, not once per request, and again only after it went away
/// for good and came back: a disk that is nearly full fails one write in three, and that is one
/// problem, not a log line per image.
final class ProblemReporter: Sendable {
    /// Successes in a row after which a problem counts as gone.
    static let successesToRecover = 100

    private struct State {
        var reported = false
        var successesSinceReport = 0
    }

    private let state = NIOLockedValueBox(State())

    func report(_ message: String, logger: Logger) {
        let isNew = state.withLockedValue { state in
            defer {
                state.reported = true
                state.successesSinceReport = 0
            }
            return !state.reported
        }
        if isNew { logger.error("\(message)") }
    }

    func recordSuccess() {
        state.withLockedValue { state in
            guard state.reported else { return }
            state.successesSinceReport += 1
            if state.successesSinceReport >= Self.successesToRecover { state = State() }
        }
    }
}
