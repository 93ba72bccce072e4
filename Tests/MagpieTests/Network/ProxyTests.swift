import Foundation
import Magpie
import MagpieTesting
import Testing

/// Loads through tinyproxy: `CONNECT` tunnels for https, absolute-form requests for http,
/// credentials for the proxy only, and `NO_PROXY` exceptions.
@Suite("Egress proxy")
struct ProxyTests {
    static func withProxy<T>(credentials: (String, String)? = ("magpie", "s3cret"), _ body: (TinyProxy) async throws -> T) async throws -> T {
        let proxy = try await TinyProxy(credentials: credentials)
        defer { proxy.stop() }
        return try await body(proxy)
    }

    @Test func httpsGoesThroughACONNECTTunnelWithCredentials() async throws {
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                try await Self.withProxy { proxy in
                    try await NetworkTesting.withPipeline({ configuration in
                        configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: ca.certificateFile.path)]
                        configuration.proxy = try ProxySettings(environment: ["HTTPS_PROXY": proxy.url(username: "magpie", password: "s3cret")])
                    }) { pipeline in
                        let image = try await pipeline.image(for: nginx.url("/a.png"))
                        #expect(image.width == 64)
                    }
                    #expect(proxy.connectionsOpened() == 1)
                    #expect(nginx.requests().map(\.proxyAuthorization) == [nil])
                }
            }
        }
    }

    @Test func plainHTTPIsProxiedAndTheOriginNeverSeesTheProxyCredentials() async throws {
        try await NetworkTesting.withNginx { nginx in
            try await Self.withProxy { proxy in
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.proxy = try ProxySettings(environment: ["http_proxy": proxy.url(username: "magpie", password: "s3cret")])
                }) { pipeline in
                    let image = try await pipeline.image(for: nginx.url("/a.png"))
                    #expect(image.width == 64)
                }
                #expect(proxy.connectionsOpened() == 1)
                let requests = nginx.requests()
                #expect(requests.count == 1)
                #expect(requests.map(\.proxyAuthorization) == [nil])
            }
        }
    }

    @Test func wrongCredentialsSayTheProxyRefusedTheTunnel() async throws {
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                try await Self.withProxy { proxy in
                    try await NetworkTesting.withPipeline({ configuration in
                        configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: ca.certificateFile.path)]
                        configuration.proxy = ProxySettings(https: try .init(url: proxy.url(username: "magpie", password: "wrong")))
                    }) { pipeline in
                        let failure = try #require(await NetworkTesting.failure(loading: nginx.url("/a.png"), with: pipeline))
                        #expect(failure.reason == .proxyFailed)
                        // tinyproxy answers a CONNECT with wrong credentials 401, not 407, so the
                        // message cannot say more than that the tunnel was refused.
                        #expect(
                            failure.message
                                == "the proxy 127.0.0.1:\(proxy.port) refused the tunnel to 127.0.0.1:\(nginx.port) (check its credentials and rules)")
                        NetworkTesting.expectReadable(failure)
                    }
                    #expect(nginx.requests().isEmpty)
                }
            }
        }
    }

    @Test func noProxyHostsAreReachedDirectly() async throws {
        try await NetworkTesting.withNginx { nginx in
            try await Self.withProxy { proxy in
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.proxy = try ProxySettings(environment: [
                        "HTTP_PROXY": proxy.url(username: "magpie", password: "s3cret"), "NO_PROXY": "localhost,127.0.0.0/8",
                    ])
                }) { pipeline in
                    let image = try await pipeline.image(for: nginx.url("/a.png"))
                    #expect(image.width == 64)
                }
                #expect(proxy.connectionsOpened() == 0)
                #expect(nginx.requests().count == 1)
            }
        }
    }

    @Test func deadProxySaysItIsTheProxy() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.connectTimeout = .seconds(30)
                    configuration.proxy = ProxySettings(https: .init(host: "127.0.0.1", port: port))
                }) { pipeline in
                    let failure = try #require(await NetworkTesting.failure(loading: nginx.url("/a.png"), with: pipeline))
                    #expect(failure.reason == .proxyFailed)
                    #expect(failure.message == "cannot reach the proxy 127.0.0.1:\(port): connection refused")
                    NetworkTesting.expectReadable(failure)
                }
            }
        }
    }
}
