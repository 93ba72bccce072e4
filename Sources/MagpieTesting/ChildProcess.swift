public import Foundation

/// Runs a program found on the `PATH` (a reference tool, a script) and returns what it printed.
public enum ChildProcess {
    /// The program exited with a failure; `description` holds what it wrote to standard error.
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `program arguments…` and returns its standard output.
    public static func run(_ program: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let output = Pipe()
        // Standard error goes to a file, so a program that writes a lot to both cannot block on
        // a full pipe while this reads the other.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-child-\(UUID().uuidString).err")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil) else {
            throw Failed(description: "cannot create \(errors.path)")
        }
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        // Its output has ended; a child that has closed it but not exited is given a minute.
        let status = ChildEnd.waitBlocking(for: process, limit: .seconds(60))
        guard status == 0 else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            let name = arguments.first.map { "\(program) \(URL(fileURLWithPath: $0).lastPathComponent)" } ?? program
            throw Failed(description: "\(name) failed: \(message)")
        }
        return printed
    }
}
