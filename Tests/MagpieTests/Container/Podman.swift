import Foundation
import MagpieTesting

/// podman as it runs on this project's machines (issue 52): with runc, since Debian's crun
/// refuses their hybrid cgroups; cgroupfs, with no systemd to manage them; and the machine's own
/// hard limit of open files, since podman's default limits are refused. `store`, when given, is
/// a folder for an image store of its own (`--root`, `--runroot`), which starts empty.
struct Podman {
    var store: URL?

    /// The global flags, then `arguments`.
    func command(_ arguments: [String]) -> [String] {
        var global = ["--runtime", "runc", "--cgroup-manager", "cgroupfs", "--events-backend", "file"]
        if let store { global += ["--root", store.appendingPathComponent("root").path, "--runroot", store.appendingPathComponent("run").path] }
        return global + arguments
    }

    /// `podman run`'s flags every container here needs: the hard limits podman cannot raise.
    static var limits: [String] {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return ["--ulimit", "nofile=\(limit.rlim_max):\(limit.rlim_max)", "--ulimit", "nproc=32768:32768"]
    }

    /// Runs podman and returns its standard output; a failure throws what it wrote to standard
    /// error.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        String(decoding: try ChildProcess.run("podman", command(arguments)), as: UTF8.self)
    }

    /// Runs podman and returns its exit status and both outputs, for commands whose failure is
    /// an answer (`healthcheck run`, `wait`).
    func status(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["podman"] + command(arguments)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
    }

    /// What the container has written to its standard output and error so far.
    func logs(_ container: String) -> String {
        (try? status(["logs", container]).output) ?? ""
    }

    /// Removes the container, its anonymous volumes with it.
    func remove(_ container: String) {
        _ = try? status(["rm", "--force", "--volumes", container])
    }

    /// Empties and removes the store of its own.
    func removeStore() {
        guard let store else { return }
        _ = try? status(["rm", "--all", "--force", "--volumes"])
        _ = try? status(["rmi", "--all", "--force"])
        try? FileManager.default.removeItem(at: store)
    }
}
