public import Foundation

/// A server program (nginx, tinyproxy from the system; a peer's binary by its path) run in the
/// foreground for a test:
/// started, waited for until its port accepts connections, and stopped.
public final class DaemonProcess: Sendable {
    /// The program did not start or never opened its port.
    public struct StartError: Error, CustomStringConvertible {
        /// What went wrong, with the program's output.
        public let description: String
    }

    private let process: Process
    private let stopSignal: Int32
    /// Where the program's standard output and error go.
    public let outputFile: URL

    /// Runs `executable` with `arguments` (and `environment` beside this process's own) and
    /// waits up to `startupLimit` for 127.0.0.1:`port` to accept connections.
    public init(
        executable: String, arguments: [String], port: Int, outputFile: URL, environment: [String: String] = [:],
        stopSignal: Int32 = SIGTERM, startupLimit: Duration = .seconds(10)
    ) async throws {
        self.stopSignal = stopSignal
        guard let path = Self.find(executable) else {
            throw StartError(description: "\(executable) is not installed (scripts/install-dependencies installs it)")
        }
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputFile)
        process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = output
        process.standardError = output
        self.outputFile = outputFile
        try process.run()
        try Tether.bind(process, signal: stopSignal)
        let clock = ContinuousClock()
        let deadline = clock.now + startupLimit
        while !LoopbackPort.isListening(port) {
            guard process.isRunning, clock.now < deadline else {
                stop()
                let log = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
                throw StartError(description: "\(executable) did not listen on port \(port): \(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Sends the stop signal and waits for the program to exit; SIGKILL after two seconds.
    public func stop() {
        guard ChildEnd.status(of: process) == nil else { return }
        kill(process.processIdentifier, stopSignal)
        if ChildEnd.waitBlocking(for: process, limit: .seconds(2)) == nil {
            kill(process.processIdentifier, SIGKILL)
            _ = ChildEnd.waitBlocking(for: process, limit: .seconds(10))
        }
    }

    /// Kills the program (SIGKILL) and waits for it to exit without holding a thread: for a
    /// server whose data is thrown away and whose graceful stop is slow (SeaweedFS takes 12 s).
    public func killed() async {
        guard ChildEnd.status(of: process) == nil else { return }
        kill(process.processIdentifier, SIGKILL)
        _ = await ChildEnd.wait(for: process, limit: .seconds(10))
    }

    deinit { stop() }

    private static func find(_ executable: String) -> String? {
        if executable.contains("/") { return FileManager.default.isExecutableFile(atPath: executable) ? executable : nil }
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (folders + ["/usr/sbin", "/usr/bin", "/sbin"]).map { "\($0)/\(executable)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
