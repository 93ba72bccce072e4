public import Foundation

/// nginx balancing `magpie proxy` replicas on 127.0.0.1 with the directives a test gives (the
/// replicas article's, with the test's ports), inside an `http` block with this instance's
/// folders.
public final class NginxReplicas: Sendable {
    /// The port on 127.0.0.1.
    public let port: Int
    private let nginx: NginxInstance

    /// Starts nginx with `directives(port)` in its `http` block; `port` is the one its server
    /// must listen on (127.0.0.1).
    public init(directives: @escaping @Sendable (_ port: Int) -> String) async throws {
        nginx = try await NginxInstance.start(name: "magpie-nginx-replicas", subfolders: [("tmp", 0o777)]) { base, port in
            """
            \(NginxInstance.preamble(base: base))
            http {
                access_log off;
                \(NginxInstance.temporaryPaths(in: base))
            \(directives(port))
            }
            """
        }
        port = nginx.port
    }

    /// `http://127.0.0.1:port` followed by `path`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Stops nginx and removes its folder.
    public func stop() {
        nginx.stop()
    }
}
