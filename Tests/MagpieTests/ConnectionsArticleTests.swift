import Foundation
import Magpie
import MagpieTesting
import Testing

// The Connections article's snippets, compiled and run.
func placeholderReason(for error: MagpieError) -> String {
    guard case .network(let failure) = error else { return "\(error)" }
    switch failure.reason {
    case .certificateNotTrusted, .certificateExpired, .certificateForAnotherHost:
        return "the image host's certificate is broken: \(failure.message)"
    case .hostNotFound, .connectionRefused, .connectTimedOut:
        return "the image host is down: \(failure.message)"
    default:
        return failure.message
    }
}

func makeEgressPipeline(
    privateCA: String, clientCertificate: String, clientKey: String, environment: [String: String]
) throws -> ImagePipeline {
    var configuration = ImagePipeline.Configuration()
    configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: privateCA)]
    configuration.tls.clientCertificate = try ClientCertificate(
        certificatePEMFile: clientCertificate, privateKeyPEMFile: clientKey)
    configuration.proxy = try ProxySettings(environment: environment)
    configuration.connectTimeout = .seconds(3)
    return ImagePipeline(configuration: configuration)
}

@Suite("Connections article")
struct ConnectionsArticleTests {
    @Test func egressPipelineLoadsThroughTheProxyWithItsClientCertificate() async throws {
        try await NetworkTesting.withCA { ca in
            let client = try ca.issueClient()
            try await NetworkTesting.withNginx(certificate: try ca.issueServer(), clientCA: ca.certificateFile) { nginx in
                let proxy = try await TinyProxy()
                defer { proxy.stop() }
                let pipeline = try makeEgressPipeline(
                    privateCA: ca.certificateFile.path, clientCertificate: client.certificateFile.path,
                    clientKey: client.keyFile.path, environment: ["HTTPS_PROXY": proxy.url()])
                let image = try await pipeline.image(for: nginx.url("/a.png"))
                #expect(image.width == 64)
                // tinyproxy's log line may land after the answer: on a loaded CI machine it was
                // not there yet when the load returned (one run in many).
                try await waitUntil { proxy.connectionsOpened() >= 1 }
                #expect(proxy.connectionsOpened() == 1)
                await pipeline.shutdown()
            }
        }
    }

    @Test func placeholderReasonNamesTheCause() {
        let down = MagpieError.network(NetworkFailure(.connectionRefused, "connection refused by 127.0.0.1:9"))
        #expect(placeholderReason(for: down) == "the image host is down: connection refused by 127.0.0.1:9")
        let broken = MagpieError.network(NetworkFailure(.certificateExpired, "the certificate of h:443 expired on 2026-01-01"))
        #expect(placeholderReason(for: broken) == "the image host's certificate is broken: the certificate of h:443 expired on 2026-01-01")
    }
}
