import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command's output: result lines on standard output, messages on standard error, and on a
/// terminal a live status line kept below the results. Writes from any task come out whole.
final class Console: Sendable {
    /// Whether standard error is a terminal that can redraw a line.
    let isInteractive: Bool
    private let status = NIOLockedValueBox<String?>(nil)

    init(isInteractive: Bool = Console.standardErrorIsTerminal) {
        self.isInteractive = isInteractive
    }

    static var standardErrorIsTerminal: Bool {
        isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// Writes a result line to standard output.
    func output(_ line: String) {
        write(line, to: FileHandle.standardOutput)
    }

    /// Writes a message line to standard error.
    func message(_ line: String) {
        write(line, to: FileHandle.standardError)
    }

    /// Replaces the status line (terminal only); `nil` removes it.
    func setStatus(_ line: String?) {
        guard isInteractive else { return }
        status.withLockedValue { current in
            current = line
            Self.send(Self.clearLine + (line ?? ""), to: .standardError)
        }
    }

    private static let clearLine = "\r\u{1B}[2K"

    private func write(_ line: String, to handle: FileHandle) {
        status.withLockedValue { current in
            // Lift the status line, write, and put it back underneath.
            if isInteractive, current != nil { Self.send(Self.clearLine, to: .standardError) }
            Self.send(line + "\n", to: handle)
            if isInteractive, let current { Self.send(current, to: .standardError) }
        }
    }

    /// A reader that went away (`magpie fetch --json | head -3`) is not an error: the command
    /// carries on with its downloads and files, it just has nobody to tell.
    private static func send(_ text: String, to handle: FileHandle) {
        try? handle.write(contentsOf: Data(text.utf8))
    }
}
