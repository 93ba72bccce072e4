import Foundation

/// tinyproxy from the system on 127.0.0.1: an HTTP proxy that tunnels `CONNECT` to any port,
/// optionally asking for Basic credentials. Its log says which hosts it connected to.
public final class TinyProxy: Sendable {
    /// The port on 127.0.0.1.
    public let port: Int
    private let folder: URL
    private let daemon: DaemonProcess

    /// Starts tinyproxy; with `credentials` it answers 407 to requests without them.
    public init(credentials: (username: String, password: String)? = nil) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-tinyproxy-\(UUID().uuidString)", isDirectory: true)
        // tinyproxy started by root drops to nobody, who must still write the log.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
        self.folder = folder
        (port, daemon) = try await LoopbackPort.retryingIfTaken { port in
            var lines = [
                "Port \(port)", "Listen 127.0.0.1", "Timeout 30", "MaxClients 64", "Allow 127.0.0.1",
                "LogFile \"\(folder.path)/tinyproxy.log\"", "LogLevel Connect", "DisableViaHeader Yes",
            ]
            if getuid() == 0 { lines += ["User nobody", "Group nogroup"] }
            if let credentials { lines.append("BasicAuth \(credentials.username) \(credentials.password)") }
            let file = folder.appendingPathComponent("tinyproxy.conf")
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
            return try await DaemonProcess(
                executable: "tinyproxy", arguments: ["-d", "-c", file.path], port: port,
                // It looks at SIGTERM only when a connection wakes it, and keeps no state.
                outputFile: folder.appendingPathComponent("output.log"), stopSignal: SIGKILL)
        }
    }

    /// `http://127.0.0.1:<port>`, with credentials when given.
    public func url(username: String? = nil, password: String? = nil) -> String {
        let userinfo = username.map { "\($0):\(password ?? "")@" } ?? ""
        return "http://\(userinfo)127.0.0.1:\(port)"
    }

    /// How many connections the proxy opened to an origin (CONNECT tunnels and proxied requests).
    public func connectionsOpened() -> Int {
        let text = (try? String(contentsOf: folder.appendingPathComponent("tinyproxy.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains("Established connection to host") }.count
    }

    /// Stops tinyproxy and removes its folder.
    public func stop() {
        daemon.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
