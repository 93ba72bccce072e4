import Foundation
import Magpie
import MagpieTesting
import Testing

/// The address policy refuses internal addresses on the address each connection opens (first
/// request and every redirect), with a test-only allowance for loopback and nothing else.
@Suite("Address policy")
struct AddressPolicyTests {
    @Test(arguments: [
        ("127.0.0.1", "loopback"), ("127.9.8.7", "loopback"), ("::1", "loopback"),
        ("10.1.2.3", "private-network"), ("172.16.0.1", "private-network"), ("172.31.255.255", "private-network"),
        ("192.168.1.1", "private-network"), ("fc00::1", "private-network"), ("fd12:3456::1", "private-network"),
        ("169.254.169.254", "link-local"), ("fe80::1", "link-local"),
        ("100.64.0.1", "carrier-grade NAT"), ("100.127.255.254", "carrier-grade NAT"),
        ("0.0.0.0", "unspecified"), ("::", "unspecified"), ("224.0.0.1", "multicast"), ("ff02::1", "multicast"),
        ("255.255.255.255", "broadcast"), ("192.0.2.1", "documentation"), ("2001:db8::1", "documentation"),
        ("::ffff:127.0.0.1", "IPv4 127.0.0.1 inside IPv6"), ("::ffff:10.0.0.1", "IPv4 10.0.0.1 inside IPv6"),
        ("::ffff:169.254.169.254", "IPv4 169.254.169.254 inside IPv6"), ("64:ff9b::a9fe:a9fe", "IPv4 169.254.169.254 inside IPv6"),
        ("2002:c0a8:0101::1", "IPv4 192.168.1.1 inside IPv6"), ("::7f00:1", "IPv4-compatible"),
    ])
    func refusesInternalAddresses(address: String, kind: String) throws {
        let refusal = try #require(AddressPolicy.publicOnly.refusal(for: address), "\(address) was allowed")
        #expect(refusal.contains(kind), "\(refusal)")
    }

    @Test(arguments: ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "192.169.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2002:0808:0808::1"])
    func allowsPublicAddresses(address: String) {
        #expect(AddressPolicy.publicOnly.refusal(for: address) == nil)
    }

    @Test func allowingLoopbackAllowsNothingElse() {
        let policy = AddressPolicy(allowing: .loopback)
        for address in ["127.0.0.1", "::1", "::ffff:127.0.0.1"] {
            #expect(policy.refusal(for: address) == nil, "\(address)")
        }
        for address in ["10.0.0.1", "169.254.169.254", "fe80::1", "fc00::1", "100.64.0.1", "0.0.0.0", "::ffff:10.0.0.1"] {
            #expect(policy.refusal(for: address) != nil, "\(address)")
        }
    }

    @Test func notAnAddressIsRefused() {
        #expect(AddressPolicy.publicOnly.refusal(for: "example.com")?.contains("not an IP address") == true)
    }

    @Test(arguments: ["127.0.0.1", "::1"])
    func loopbackOriginIsRefusedWhenConnecting(address: String) async throws {
        let server = try await ImageServer.start(address: address)
        server.serve("/a.png", .image(NetworkTesting.png))
        try await NetworkTesting.withPipeline({ $0.addressPolicy = .publicOnly }) { pipeline in
            let failure = try #require(await NetworkTesting.failure(loading: server.url("/a.png"), with: pipeline))
            #expect(failure.reason == .addressNotAllowed)
            #expect(failure.message.contains("loopback"), "\(failure.message)")
            NetworkTesting.expectReadable(failure)
        }
        #expect(server.statistics(for: "/a.png").requests == 0)
        await server.shutdown()
    }

    /// `localhost` is a name: what is refused is the address it resolves to, found at connect time.
    @Test func nameResolvingToLoopbackIsRefused() async throws {
        let server = try await ImageServer.start()
        server.serve("/a.png", .image(NetworkTesting.png))
        try await NetworkTesting.withPipeline({ $0.addressPolicy = .publicOnly }) { pipeline in
            let url = URL(string: "http://localhost:\(server.port)/a.png")!
            let failure = try #require(await NetworkTesting.failure(loading: url, with: pipeline))
            #expect(failure.reason == .addressNotAllowed)
            #expect(failure.message == "refused to connect to localhost:\(server.port): localhost resolves to 127.0.0.1 is a loopback address, which the address policy refuses")
        }
        #expect(server.statistics(for: "/a.png").requests == 0)
        await server.shutdown()
    }

    @Test(arguments: ["127.0.0.1", "::1"])
    func allowedLoopbackLoads(address: String) async throws {
        let server = try await ImageServer.start(address: address)
        server.serve("/a.png", .image(NetworkTesting.png))
        try await NetworkTesting.withPipeline({ $0.addressPolicy = AddressPolicy(allowing: .loopback) }) { pipeline in
            let image = try await pipeline.image(for: server.url("/a.png"))
            #expect(image.width == 64)
            // Through the gate, connections are still reused.
            _ = try await pipeline.image(for: server.url("/a.png"))
        }
        #expect(server.statistics(for: "/a.png").requests == 2)
        await server.shutdown()
    }

    /// A public-looking first hop that redirects inward is stopped at the redirect's connection.
    @Test(arguments: ["http://10.0.0.1/a.png", "http://169.254.169.254/latest/meta-data/", "http://[fd00::1]/a.png", "http://[::ffff:a00:1]/a.png"])
    func redirectToInternalAddressIsRefused(target: String) async throws {
        let server = try await ImageServer.start()
        server.serve("/hop", .redirect(to: target))
        try await NetworkTesting.withPipeline({ $0.addressPolicy = AddressPolicy(allowing: .loopback) }) { pipeline in
            let failure = try #require(await NetworkTesting.failure(loading: server.url("/hop"), with: pipeline))
            #expect(failure.reason == .addressNotAllowed, "\(failure.message)")
            NetworkTesting.expectReadable(failure)
        }
        #expect(server.statistics(for: "/hop").requests == 1)
        await server.shutdown()
    }

    @Test func refusedConnectionThroughTheGateKeepsItsReason() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        try await NetworkTesting.withPipeline({ $0.addressPolicy = AddressPolicy(allowing: .loopback) }) { pipeline in
            let failure = try #require(await NetworkTesting.failure(loading: URL(string: "http://127.0.0.1:\(port)/x.jpg")!, with: pipeline))
            #expect(failure.reason == .connectionRefused)
            #expect(failure.message == "connection refused by 127.0.0.1:\(port)")
        }
    }

    /// TLS runs end to end through the gate: the certificate is still checked against the host.
    @Test func httpsThroughTheGate() async throws {
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.addressPolicy = AddressPolicy(allowing: .loopback)
                    configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: ca.certificateFile.path)]
                }) { pipeline in
                    let image = try await pipeline.image(for: nginx.url("/a.png"))
                    #expect(image.width == 64)
                }
                try await NetworkTesting.withPipeline({ $0.addressPolicy = AddressPolicy(allowing: .loopback) }) { pipeline in
                    let failure = try #require(await NetworkTesting.failure(loading: nginx.url("/a.png"), with: pipeline))
                    #expect(failure.reason == .certificateNotTrusted)
                }
                #expect(nginx.requests().map(\.protocolVersion) == ["HTTP/2.0"])
            }
        }
    }
}
