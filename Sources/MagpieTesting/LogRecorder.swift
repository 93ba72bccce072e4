public import Logging
import NIOConcurrencyHelpers

/// Collects what a `Logger` made with ``logger(label:)`` logs, so a test can count messages.
///
/// ```swift
/// let recorder = LogRecorder()
/// configuration.logger = recorder.logger(label: "magpie")
/// #expect(recorder.messages(atLeast: .error).count == 1)
/// ```
public final class LogRecorder: Sendable {
    /// One logged message.
    public struct Entry: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: [String: String]
    }

    private let entries = NIOLockedValueBox<[Entry]>([])

    public init() {}

    /// A logger whose messages, at every level, this recorder keeps.
    public func logger(label: String) -> Logger {
        var logger = Logger(label: label) { _ in Handler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    /// Messages logged at `level` or above.
    public func messages(atLeast level: Logger.Level) -> [Entry] {
        entries.withLockedValue { $0.filter { $0.level >= level } }
    }

    fileprivate func append(_ entry: Entry) {
        entries.withLockedValue { $0.append(entry) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            recorder.append(Entry(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}
