import Logging
import NIOConcurrencyHelpers

/// Logs a persistent problem once, not once per request, and again only after it went away
/// and came back.
final class ProblemReporter: Sendable {
    private let reported = NIOLockedValueBox(false)

    func report(_ message: String, logger: Logger) {
        let isNew = reported.withLockedValue { reported in
            defer { reported = true }
            return !reported
        }
        if isNew { logger.error("\(message)") }
    }

    func clear() {
        reported.withLockedValue { $0 = false }
    }
}
