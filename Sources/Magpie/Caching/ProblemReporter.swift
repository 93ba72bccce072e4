import Logging
import Synchronization

/// Logs a persistent problem once, not once per request, and again only after it went away
/// and came back.
final class ProblemReporter: Sendable {
    private let reported = Mutex(false)

    func report(_ message: String, logger: Logger) {
        let isNew = reported.withLock { reported in
            defer { reported = true }
            return !reported
        }
        if isNew { logger.error("\(message)") }
    }

    func clear() {
        reported.withLock { $0 = false }
    }
}
