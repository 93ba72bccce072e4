public import Foundation

/// Runs a Python 3 script (the reference implementations and tools tests compare against) and
/// returns what it printed.
public enum PythonScript {
    /// The script exited with a failure; `description` holds what it wrote to standard error.
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `python3 script arguments…` and returns its standard output.
    public static func run(_ script: URL, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + arguments
        let output = Pipe()
        // Standard error goes to a file, so a script that writes a lot to both cannot block on
        // a full pipe while this reads the other.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-python-\(UUID().uuidString).err")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil) else {
            throw Failed(description: "cannot create \(errors.path)")
        }
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw Failed(description: "\(script.lastPathComponent) failed: \(message)")
        }
        return printed
    }
}
