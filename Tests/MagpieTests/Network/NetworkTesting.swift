import Foundation
import Magpie
import MagpieTesting
import Testing

/// Shared pieces of the tests against real servers on loopback (nginx, tinyproxy).
enum NetworkTesting {
    static let png: [UInt8] = (try? TestImages.texture(width: 64, height: 48, format: .png)) ?? []

    /// A pipeline without disk cache, changed by `configure`, shut down after `body`.
    @discardableResult
    static func withPipeline<T: Sendable>(
        _ configure: (inout ImagePipeline.Configuration) throws -> Void = { _ in },
        _ body: (ImagePipeline) async throws -> T
    ) async throws -> T {
        var configuration = ImagePipeline.Configuration()
        // A loaded machine can hold a loopback connect for seconds; timeout tests set their own.
        configuration.connectTimeout = .seconds(60)
        configuration.diskCache = nil
        configuration.memoryCache = nil
        configuration.failedURLBlockDuration = .zero
        // The machine's memory pressure is not the test's (see `withTestFixture`).
        configuration.memoryPressure = nil
        try configure(&configuration)
        return try await withImagePipeline(configuration: configuration, body)
    }

    /// The network failure loading `url` throws; records an issue when it loads or fails otherwise.
    static func failure(loading url: URL, with pipeline: ImagePipeline) async -> NetworkFailure? {
        do {
            _ = try await pipeline.image(for: url)
            Issue.record("\(url) loaded, but it should have failed")
        } catch .network(let failure) {
            return failure
        } catch {
            Issue.record("\(url) failed with \(error), not a network failure")
        }
        return nil
    }

    /// A message must be one line a person can act on: no library internals, errno numbers or
    /// source paths.
    static func expectReadable(_ failure: NetworkFailure, sourceLocation: SourceLocation = #_sourceLocation) {
        let message = failure.message
        #expect(!message.contains("\n"), sourceLocation: sourceLocation)
        for leak in ["errno", "NIO", "BoringSSL", "OPENSSL", ".swift", ".cc", "/work", "/tmp", "error set"] {
            #expect(!message.contains(leak), "\(message) mentions \(leak)", sourceLocation: sourceLocation)
        }
    }

    /// Starts nginx, runs `body` and stops nginx even when `body` throws.
    static func withNginx<T>(
        certificate: ThrowawayCA.Issued? = nil, clientCA: URL? = nil, tlsProtocols: String? = nil,
        _ body: (NginxServer) async throws -> T
    ) async throws -> T {
        let server = try await NginxServer(certificate: certificate, clientCA: clientCA, tlsProtocols: tlsProtocols)
        defer { server.stop() }
        try server.serve(png, at: "a.png")
        return try await body(server)
    }

    /// A throwaway CA for `body`, removed afterwards.
    static func withCA<T>(_ body: (ThrowawayCA) async throws -> T) async throws -> T {
        let ca = try ThrowawayCA()
        defer { ca.remove() }
        return try await body(ca)
    }
}
