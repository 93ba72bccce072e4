public import Foundation

/// nginx from the system, serving files from a folder of its own on 127.0.0.1: over TLS with
/// HTTP/2 when given a certificate, optionally requiring a client certificate; plain HTTP/1.1
/// otherwise. Its access log says which connection and protocol served each request.
public final class NginxServer: Sendable {
    /// One line of the access log.
    public struct Request: Sendable, Equatable {
        /// nginx's connection serial number: requests with the same one shared a connection.
        public let connection: Int
        /// `HTTP/2.0`, `HTTP/1.1`.
        public let protocolVersion: String
        /// The response status.
        public let status: Int
        /// The request's path and query.
        public let path: String
        /// The `Proxy-Authorization` field the origin received, `nil` when none.
        public let proxyAuthorization: String?
    }

    /// The port on 127.0.0.1.
    public let port: Int
    /// Whether it serves https (with HTTP/2) rather than plain http.
    public let usesTLS: Bool
    private let nginx: NginxInstance

    /// Starts nginx. `certificate` turns on TLS and HTTP/2; `clientCA` then requires a client
    /// certificate issued by that CA; `tlsProtocols` (nginx's `ssl_protocols`, such as
    /// `"TLSv1.2"`) limits the versions offered.
    public init(certificate: ThrowawayCA.Issued? = nil, clientCA: URL? = nil, tlsProtocols: String? = nil) async throws {
        usesTLS = certificate != nil
        nginx = try await NginxInstance.start(name: "magpie-nginx", subfolders: [("html", 0o755), ("tmp", 0o755)]) { base, port in
            Self.configuration(base: base, port: port, certificate: certificate, clientCA: clientCA, tlsProtocols: tlsProtocols)
        }
        port = nginx.port
    }

    /// Writes `bytes` where nginx serves them as `path`.
    public func serve(_ bytes: [UInt8], at path: String) throws {
        let file = nginx.folder.appendingPathComponent("html").appendingPathComponent(path)
        try Data(bytes).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
    }

    /// The URL of `path` on this server, by address or by `host` (which must resolve to loopback).
    public func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "\(usesTLS ? "https" : "http")://\(host):\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// Requests served so far, oldest first.
    public func requests() -> [Request] {
        let text = (try? String(contentsOf: nginx.folder.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5, let connection = Int(fields[0]), let status = Int(fields[2]) else { return nil }
            return Request(
                connection: connection, protocolVersion: fields[1], status: status, path: fields[3],
                proxyAuthorization: fields[4] == "-" ? nil : fields[4])
        }
    }

    /// Stops nginx and removes its folder.
    public func stop() {
        nginx.stop()
    }

    private static func configuration(
        base: String, port: Int, certificate: ThrowawayCA.Issued?, clientCA: URL?, tlsProtocols: String?
    ) -> String {
        var listen = "listen 127.0.0.1:\(port);"
        var tls = ""
        if let certificate {
            listen = "listen 127.0.0.1:\(port) ssl http2;"
            tls = """
                ssl_certificate \(certificate.certificateFile.path);
                ssl_certificate_key \(certificate.keyFile.path);
                """
            if let tlsProtocols { tls += "\nssl_protocols \(tlsProtocols);" }
            if let clientCA {
                tls += "\nssl_client_certificate \(clientCA.path);\nssl_verify_client on;"
            }
        }
        return """
            \(NginxInstance.preamble(base: base))
            http {
                log_format magpie "$connection\\t$server_protocol\\t$status\\t$request_uri\\t$http_proxy_authorization";
                access_log \(base)/access.log magpie;
                \(NginxInstance.temporaryPaths(in: base))
                types { image/jpeg jpg; image/png png; }
                server {
                    \(listen)
                    \(tls)
                    root \(base)/html;
                }
            }
            """
    }
}
