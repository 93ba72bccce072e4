import Foundation
import MagpieTesting
import Testing

/// A built executable of the package (`magpie`, `MagpieProbe`), run as a child process the way a
/// person or a script runs it.
struct MagpieTool {
    struct Result {
        let status: Int32
        let standardOutput: String
        let standardError: String

        var outputLines: [String] { standardOutput.split(separator: "\n").map(String.init) }
    }

    let executable: URL
    /// Stands in for the user's home, so nothing touches the real `~/.cache`.
    let home: URL

    /// The package's executable `name` next to the test bundle (SwiftPM builds both into one
    /// folder), or the path in `MAGPIE_CLI` for `magpie`.
    static func locate(_ name: String = "magpie") throws -> MagpieTool {
        let environment = ProcessInfo.processInfo.environment
        let candidate: URL
        if name == "magpie", let path = environment["MAGPIE_CLI"] {
            candidate = URL(fileURLWithPath: path)
        } else {
            let testBinary = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            candidate = testBinary.deletingLastPathComponent().appendingPathComponent(name)
        }
        try #require(FileManager.default.isExecutableFile(atPath: candidate.path), "build the magpie product first: \(candidate.path)")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-cli-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        return MagpieTool(executable: candidate, home: home)
    }

    /// Runs `magpie arguments…`, feeding `input` on standard input, and waits for it to exit
    /// (killing it after `limit`, so a hang fails the test instead of stalling the suite).
    func run(
        _ arguments: [String], input: String = "", environment: [String: String] = [:], limit: Duration = .seconds(120)
    ) async throws -> Result {
        let scratch = home.appendingPathComponent("run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (inputFile, outputFile, errorFile) = (
            scratch.appendingPathComponent("stdin"), scratch.appendingPathComponent("stdout"), scratch.appendingPathComponent("stderr")
        )
        try Data(input.utf8).write(to: inputFile)
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)

        let process = makeProcess(arguments, environment: environment)
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        let status = try await Self.runToEnd(process, limit: limit)
        return Result(
            status: status,
            standardOutput: String(decoding: try Data(contentsOf: outputFile), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
    }

    /// Starts `magpie arguments…` without waiting, for long-running commands such as `serve`;
    /// its standard error goes to `errorOutput`, or nowhere.
    func start(_ arguments: [String], environment: [String: String] = [:], errorOutput: URL? = nil) throws -> (process: Process, output: URL) {
        let output = home.appendingPathComponent("stdout-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = makeProcess(arguments, environment: environment)
        process.standardOutput = try FileHandle(forWritingTo: output)
        if let errorOutput {
            _ = FileManager.default.createFile(atPath: errorOutput.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errorOutput)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        try Tether.bind(process)
        return (process, output)
    }

    /// The port of the first `http://HOST:PORT` a started command wrote to `output`.
    static func listeningPort(in output: URL, host: String = "127.0.0.1", timeout: Duration = .seconds(60)) async throws -> Int {
        var port: Int?
        try await waitUntil(timeout: timeout) {
            let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
            port = text.split(separator: "http://\(host):").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }
            return port != nil
        }
        return try #require(port)
    }

    /// The executable with `arguments`, in an environment of its own: the scratch home, a plain
    /// terminal type, no inherited variables but `extra`.
    private func makeProcess(_ arguments: [String], environment extra: [String: String] = [:]) -> Process {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        // A child that crashes or is sent SIGQUIT (``waitForExit(_:limit:)``) writes every
        // thread's stack, with no prompt.
        process.environment = [
            "HOME": home.path, "PATH": "/usr/bin:/bin", "TERM": "dumb", "LANG": "C.UTF-8",
            "SWIFT_BACKTRACE": "enable=yes,interactive=no,threads=all,color=no",
        ]
            .merging(extra) { _, given in given }
        return process
    }

    /// Starts `process`, tied to this one (``Tether``), and returns its status once it ends,
    /// terminating it after `limit` so a hang fails the test instead of stalling the suite. The
    /// end is asked of the kernel too (``ChildEnd``): a child whose end Foundation never reaped
    /// once left a rehearsal's suite waiting on a zombie for 17 minutes. A child still running
    /// ten seconds past its limit is answered -1.
    static func runToEnd(_ process: Process, limit: Duration) async throws -> Int32 {
        try process.run()
        try Tether.bind(process)
        if let status = await ChildEnd.wait(for: process, limit: limit) { return status }
        process.terminate()
        return await ChildEnd.wait(for: process, limit: .seconds(10)) ?? -1
    }

    /// Waits for a started process to end and returns its status. One still running after
    /// `limit` fails the test: it is sent SIGQUIT (the Swift runtime's backtracer then writes
    /// every thread's stack to its standard error, where the test keeps it), then SIGKILL, and
    /// answered -1, so a child that never stops fails its test instead of stalling the run.
    static func waitForExit(_ process: Process, limit: Duration = .seconds(120)) async -> Int32 {
        if let status = await ChildEnd.wait(for: process, limit: limit) { return status }
        let name = process.executableURL?.lastPathComponent ?? "child"
        Issue.record("\(name) (pid \(process.processIdentifier)) did not exit within \(limit): sent SIGQUIT, then SIGKILL")
        kill(process.processIdentifier, SIGQUIT)
        if await ChildEnd.wait(for: process, limit: .seconds(15)) == nil {
            kill(process.processIdentifier, SIGKILL)
            _ = await ChildEnd.wait(for: process, limit: .seconds(10))
        }
        return -1
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: home)
    }
}
