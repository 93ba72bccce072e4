public import Foundation

/// Runs a Python 3 script (the reference implementations and tools tests compare against) and
/// returns what it printed.
public enum PythonScript {
    /// Runs `python3 script arguments…` and returns its standard output; throws
    /// `ChildProcess.Failed` with what it wrote to standard error when it fails.
    public static func run(_ script: URL, _ arguments: [String]) throws -> Data {
        try ChildProcess.run("python3", [script.path] + arguments)
    }
}
