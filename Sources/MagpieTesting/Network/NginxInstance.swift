import Foundation

/// One nginx process from the system on 127.0.0.1, on a free port, with a folder of its own
/// for its configuration, logs, pid and temporary files: what ``NginxServer`` and
/// ``NginxImageCache`` each configure differently.
struct NginxInstance: Sendable {
    let port: Int
    let folder: URL
    private let daemon: DaemonProcess

    /// Makes the folder with `subfolders` (name and permissions: nginx's workers run as nobody
    /// when started by root, so what they read must be readable by all, and what they write
    /// writable by all) and starts nginx with the configuration `configuration` gives for the
    /// folder's path and the port.
    static func start(
        name: String, subfolders: [(name: String, permissions: Int)], configuration: (_ base: String, _ port: Int) -> String
    ) async throws -> NginxInstance {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)", isDirectory: true)
        for (sub, permissions) in subfolders {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(sub), withIntermediateDirectories: true, attributes: [.posixPermissions: permissions])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let (port, daemon) = try await LoopbackPort.retryingIfTaken { port in
            let file = folder.appendingPathComponent("nginx.conf")
            try Data(configuration(folder.path, port).utf8).write(to: file)
            return try await DaemonProcess(
                executable: "nginx", arguments: ["-p", folder.path, "-c", file.path, "-g", "daemon off;"], port: port,
                outputFile: folder.appendingPathComponent("output.log"))
        }
        return NginxInstance(port: port, folder: folder, daemon: daemon)
    }

    /// Stops nginx and removes its folder.
    func stop() {
        daemon.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// What every configuration starts with: one worker, its error log and pid in the folder.
    static func preamble(base: String) -> String {
        """
        worker_processes 1;
        error_log \(base)/error.log;
        pid \(base)/nginx.pid;
        events { worker_connections 256; }
        """
    }

    /// nginx's temporary folders, all inside the instance's own `tmp`: the system's defaults
    /// are not writable by a test run.
    static func temporaryPaths(in base: String) -> String {
        ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map { "\($0)_temp_path \(base)/tmp;" }.joined(separator: " ")
    }
}
