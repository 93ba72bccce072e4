import Foundation
import Magpie
import MagpieTesting
import Testing

/// HTTPS against nginx with certificates from a CA made for the test: what is trusted loads,
/// what is not fails with the reason a person can act on.
@Suite("TLS")
struct TLSTests {
    @Test func originBehindPrivateCALoadsWhenItsCAIsTrusted() async throws {
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: ca.certificateFile.path)]
                }) { pipeline in
                    let image = try await pipeline.image(for: nginx.url("/a.png"))
                    #expect(image.width == 64)
                }
                #expect(nginx.requests().map(\.protocolVersion) == ["HTTP/2.0"])
            }
        }
    }

    @Test func onlyTheGivenCertificatesAreTrustedWhenTheSystemStoreIsOff() async throws {
        try await NetworkTesting.withCA { ca in
            let other = try ThrowawayCA(name: "Some Other CA")
            defer { other.remove() }
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                let pem = Array(try Data(contentsOf: ca.certificateFile))
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.tls.trustsSystemCertificates = false
                    configuration.tls.trustedCertificates = [try TrustedCertificates(pem: pem)]
                }) { pipeline in
                    let image = try await pipeline.image(for: nginx.url("/a.png"))
                    #expect(image.width == 64)
                }
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.tls.trustsSystemCertificates = false
                    configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: other.certificateFile.path)]
                }) { pipeline in
                    let failure = try #require(await NetworkTesting.failure(loading: nginx.url("/a.png"), with: pipeline))
                    #expect(failure.reason == .certificateNotTrusted)
                }
            }
        }
    }

    /// A CA file read on use (as the CLI reads `--cacert` and `SSL_CERT_FILE`) trusts its CA
    /// once it is there; while it cannot be read, HTTPS loads say so and are not blocklisted, so
    /// the file appearing (a mounted secret, an installed bundle) is enough.
    @Test func aCAFileReadOnUseTrustsItsCAOnceItIsThere() async throws {
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-ca-\(UUID().uuidString).pem")
                defer { try? FileManager.default.removeItem(at: file) }
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.tls.trustsSystemCertificates = false
                    configuration.tls.trustedCertificates = [TrustedCertificates(pemFileReadOnUse: file.path)]
                }) { pipeline in
                    let failure = try #require(await NetworkTesting.failure(loading: nginx.url("/a.png"), with: pipeline))
                    #expect(failure.reason == .trustStoreUnavailable)
                    #expect(failure.message == "cannot check the certificate of 127.0.0.1:\(nginx.port): cannot read \(file.path), the CA certificates HTTPS origins are checked against")
                    try FileManager.default.copyItem(at: ca.certificateFile, to: file)
                    let image = try await pipeline.image(for: nginx.url("/a.png"))
                    #expect(image.width == 64)
                }
            }
        }
    }

    @Test func untrustedCertificateSaysSo() async throws {
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                try await NetworkTesting.withPipeline { pipeline in
                    let failure = try #require(await NetworkTesting.failure(loading: nginx.url("/a.png"), with: pipeline))
                    #expect(failure.reason == .certificateNotTrusted)
                    #expect(failure.message.hasPrefix("the certificate of 127.0.0.1:\(nginx.port) is not trusted"))
                    NetworkTesting.expectReadable(failure)
                }
            }
        }
    }

    @Test func expiredCertificateSaysWhen() async throws {
        try await NetworkTesting.withCA { ca in
            let expiry = Date().addingTimeInterval(-3 * 86_400)
            let issued = try ca.issueServer(file: "expired", notBefore: expiry.addingTimeInterval(-86_400), notAfter: expiry)
            try await NetworkTesting.withNginx(certificate: issued) { nginx in
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: ca.certificateFile.path)]
                }) { pipeline in
                    let failure = try #require(await NetworkTesting.failure(loading: nginx.url("/a.png"), with: pipeline))
                    #expect(failure.reason == .certificateExpired)
                    let day = expiry.formatted(.iso8601.year().month().day())
                    #expect(failure.message == "the certificate of 127.0.0.1:\(nginx.port) expired on \(day)")
                    NetworkTesting.expectReadable(failure)
                }
            }
        }
    }

    @Test func certificateForAnotherHostSaysSo() async throws {
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer(hosts: ["images.example.com"], file: "other")) { nginx in
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: ca.certificateFile.path)]
                }) { pipeline in
                    let failure = try #require(await NetworkTesting.failure(loading: nginx.url("/a.png"), with: pipeline))
                    #expect(failure.reason == .certificateForAnotherHost)
                    #expect(failure.message == "the certificate of 127.0.0.1:\(nginx.port) is for another host, not 127.0.0.1")
                    NetworkTesting.expectReadable(failure)
                }
            }
        }
    }

    @Test func minimumVersionAboveTheOriginsFailsTheHandshake() async throws {
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer(), tlsProtocols: "TLSv1.2") { nginx in
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: ca.certificateFile.path)]
                    configuration.tls.minimumVersion = .v1_3
                }) { pipeline in
                    let failure = try #require(await NetworkTesting.failure(loading: nginx.url("/a.png"), with: pipeline))
                    #expect(failure.reason == .tlsHandshakeFailed)
                    #expect(failure.message.hasPrefix("the TLS handshake with 127.0.0.1:\(nginx.port) failed: "))
                    #expect(failure.message.contains("protocol version"))
                    NetworkTesting.expectReadable(failure)
                }
            }
        }
    }

    @Test func clientCertificateIsShownToOriginsThatAskForIt() async throws {
        try await NetworkTesting.withCA { ca in
            let client = try ca.issueClient()
            try await NetworkTesting.withNginx(certificate: try ca.issueServer(), clientCA: ca.certificateFile) { nginx in
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: ca.certificateFile.path)]
                }) { pipeline in
                    await #expect(throws: MagpieError.httpStatus(400, nginx.url("/a.png"))) {
                        try await pipeline.image(for: nginx.url("/a.png"))
                    }
                }
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: ca.certificateFile.path)]
                    configuration.tls.clientCertificate = try ClientCertificate(
                        certificatePEMFile: client.certificateFile.path, privateKeyPEMFile: client.keyFile.path)
                }) { pipeline in
                    let image = try await pipeline.image(for: nginx.url("/a.png"))
                    #expect(image.width == 64)
                }
            }
        }
    }

    @Test func settingsFromBadFilesFailWhereTheyAreMade() async throws {
        try await NetworkTesting.withCA { ca in
            let client = try ca.issueClient()
            let other = try ca.issueClient(file: "other")
            #expect(throws: TLSSettingsError.self) { try TrustedCertificates(pemFile: "/nonexistent/ca.pem") }
            #expect(throws: TLSSettingsError.self) { try TrustedCertificates(pemFile: client.keyFile.path) }
            #expect(throws: TLSSettingsError.self) {
                try ClientCertificate(certificatePEMFile: client.certificateFile.path, privateKeyPEMFile: other.keyFile.path)
            }
            #expect(try TrustedCertificates(pemFile: ca.certificateFile.path).count == 1)
        }
    }

    /// Several images from one host travel on one HTTP/2 connection.
    @Test func imagesFromOneHostShareOneHTTP2Connection() async throws {
        try await NetworkTesting.withCA { ca in
            try await NetworkTesting.withNginx(certificate: try ca.issueServer()) { nginx in
                for index in 0..<8 { try nginx.serve(NetworkTesting.png, at: "p\(index).png") }
                try await NetworkTesting.withPipeline({ configuration in
                    configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: ca.certificateFile.path)]
                }) { pipeline in
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        for index in 0..<8 {
                            group.addTask { try await pipeline.image(for: nginx.url("/p\(index).png")).width }
                        }
                        for try await width in group { #expect(width == 64) }
                    }
                }
                let requests = nginx.requests()
                #expect(requests.count == 8)
                #expect(Set(requests.map(\.protocolVersion)) == ["HTTP/2.0"])
                #expect(Set(requests.map(\.connection)).count == 1, "connections: \(requests.map(\.connection))")
            }
        }
    }
}
