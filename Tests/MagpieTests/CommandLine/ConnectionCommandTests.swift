import Foundation
import Magpie
import MagpieTesting
import Testing

/// `magpie fetch` trusts, proxies and reports connection failures the way curl users expect:
/// `--cacert` and `SSL_CERT_FILE`, `HTTPS_PROXY` and `NO_PROXY`, one line per failure.
@Suite("magpie fetch connections")
struct ConnectionCommandTests {
    static func withTool<T>(_ body: (MagpieTool) async throws -> T) async throws -> T {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        return try await body(tool)
    }

    @Test func cacertAndSSLCertFileTrustAPrivateCA() async throws {
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                try await Self.withTool { tool in
                    let url = nginx.url("/a.png").absoluteString
                    let untrusted = try await tool.run(["fetch", url, "--no-cache"])
                    #expect(untrusted.status == 1)
                    #expect(untrusted.standardOutput.contains("the certificate of 127.0.0.1:\(nginx.port) is not trusted"))

                    let withOption = try await tool.run(["fetch", url, "--no-cache", "--cacert", ca.certificateFile.path])
                    #expect(withOption.status == 0, "\(withOption.standardOutput)\(withOption.standardError)")

                    let withVariable = try await tool.run(["fetch", url, "--no-cache"], environment: ["SSL_CERT_FILE": ca.certificateFile.path])
                    #expect(withVariable.status == 0, "\(withVariable.standardOutput)\(withVariable.standardError)")
                }
            }
        }
    }

    /// As curl: a CA file that cannot be read fails the HTTPS loads, naming it, and nothing
    /// else; the tool starts and loads over HTTP (issue 52: SSL_CERT_FILE handed to a
    /// container without the file stopped every command at start).
    @Test(arguments: [(["--cacert", "/nonexistent/ca.pem"], [:]), ([], ["SSL_CERT_FILE": "/nonexistent/ca.pem"])] as [([String], [String: String])])
    func anUnreadableCAFileFailsOnlyHTTPS(arguments: [String], environment: [String: String]) async throws {
        let server = try await ImageServer.start()
        defer { Task { await server.shutdown() } }
        server.serve("/a.png", .image(try TestImages.texture(width: 8, height: 8, format: .png)))
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                try await Self.withTool { tool in
                    let plain = server.url("/a.png").absoluteString, secure = nginx.url("/a.png").absoluteString
                    let result = try await tool.run(["fetch", plain, secure, "--no-cache"] + arguments, environment: environment)
                    #expect(result.status == 1, "\(result.standardError)")
                    let lines = result.outputLines
                    #expect(lines.contains { $0.hasPrefix("ok     \(plain)") }, "\(lines)")
                    #expect(
                        lines.contains("error  \(secure)  cannot check the certificate of 127.0.0.1:\(nginx.port): cannot read /nonexistent/ca.pem, the CA certificates HTTPS origins are checked against"),
                        "\(lines)")
                    #expect(nginx.requests().isEmpty)
                }
            }
        }
    }

    @Test func clientCertificateFromCertAndKey() async throws {
        try await NetworkTesting.withCA { ca in
            let client = try ca.issueClient()
            try await NetworkTesting.withNginx(certificate: try ca.issueServer(), clientCA: ca.certificateFile) { nginx in
                try await Self.withTool { tool in
                    let result = try await tool.run([
                        "fetch", nginx.url("/a.png").absoluteString, "--no-cache", "--cacert", ca.certificateFile.path,
                        "--cert", client.certificateFile.path, "--key", client.keyFile.path,
                    ])
                    #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
                }
            }
        }
    }

    @Test func proxyVariablesAreHonouredAndNoProxySkipsThem() async throws {
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                let proxy = try await TinyProxy(credentials: ("magpie", "s3cret"))
                defer { proxy.stop() }
                try await Self.withTool { tool in
                    let arguments = ["fetch", nginx.url("/a.png").absoluteString, "--no-cache", "--cacert", ca.certificateFile.path]
                    let variables = ["HTTPS_PROXY": proxy.url(username: "magpie", password: "s3cret")]
                    let proxied = try await tool.run(arguments, environment: variables)
                    #expect(proxied.status == 0, "\(proxied.standardOutput)\(proxied.standardError)")
                    #expect(proxy.connectionsOpened() == 1)

                    let direct = try await tool.run(arguments, environment: variables.merging(["NO_PROXY": "127.0.0.1"]) { $1 })
                    #expect(direct.status == 0, "\(direct.standardOutput)\(direct.standardError)")
                    #expect(proxy.connectionsOpened() == 1)
                    #expect(nginx.requests().count == 2)
                }
            }
        }
    }

    @Test func connectionFailuresSayWhyInOneLine() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        try await Self.withTool { tool in
            let refused = "http://127.0.0.1:\(port)/a.png"
            let unknown = "http://magpie-test-host.invalid/a.png"
            let result = try await tool.run(["fetch", refused, unknown, "--no-cache"])
            #expect(result.status == 1)
            let lines = result.outputLines
            #expect(lines.contains("error  \(refused)  connection refused by 127.0.0.1:\(port)"), "\(lines)")
            #expect(lines.contains("error  \(unknown)  host not found: magpie-test-host.invalid"), "\(lines)")
        }
    }

    @Test(arguments: [
        (["--cert", "/tmp/c.pem"], [:], "--cert and --key go together"),
        (["--tls-min", "1.4"], [:], "--tls-min must be"),
        (["--connect-timeout", "0"], [:], "--connect-timeout must be"),
        (["--proxy", "socks5://proxy:1080"], [:], "only http proxies are supported"),
        ([], ["HTTPS_PROXY": "ftp://proxy"], "only http proxies are supported"),
    ] as [([String], [String: String], String)])
    func badConnectionSettingsAreUsageErrors(arguments: [String], environment: [String: String], message: String) async throws {
        try await Self.withTool { tool in
            let result = try await tool.run(["fetch", "http://127.0.0.1:9/a.png", "--no-cache"] + arguments, environment: environment)
            #expect(result.status == 2, "\(result.standardError)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }
    }
}
