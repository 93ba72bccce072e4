import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Says why a server's certificate failed verification. BoringSSL reports every verification
/// failure as `CERTIFICATE_VERIFY_FAILED` and AsyncHTTPClient shows no more, so after such a
/// failure the chain is fetched once more on a connection of its own, which records the
/// certificates the server presents and aborts the handshake, and their dates are read.
/// Costs one connection, only on a failure the blocklist then remembers.
enum CertificateDiagnosis {
    static func diagnose(_ failure: NetworkFailure, at destination: NetworkFailure.Destination, now: Date) async -> NetworkFailure {
        guard let chain = await presentedChain(host: destination.host, port: destination.port), let leaf = chain.first else {
            return failure
        }
        let place = destination.hostAndPort
        let instant = time_t(now.timeIntervalSince1970)
        if let expired = chain.first(where: { $0.notValidAfter < instant }) {
            let which = expired === leaf ? "the certificate of \(place)" : "a certificate in the chain of \(place)"
            return NetworkFailure(.certificateExpired, "\(which) expired on \(day(expired.notValidAfter))")
        }
        if let early = chain.first(where: { $0.notValidBefore > instant }) {
            let which = early === leaf ? "the certificate of \(place)" : "a certificate in the chain of \(place)"
            return NetworkFailure(.certificateExpired, "\(which) is not valid until \(day(early.notValidBefore))")
        }
        return NetworkFailure(
            .certificateNotTrusted,
            "the certificate of \(place) is not trusted: no trusted CA issued it (add the CA with TLSSettings.trustedCertificates or --cacert)")
    }

    private static func day(_ seconds: time_t) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601.year().month().day())
    }

    /// The certificates `host:port` presents, or `nil` when it cannot be reached again.
    private static func presentedChain(host: String, port: Int) async -> [NIOSSLCertificate]? {
        let recorded = NIOLoopBoundBox<[NIOSSLCertificate]?>.makeEmptyBox(eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        let eventLoop = recorded.eventLoop
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([])
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let serverName = IPAddressBytes(host) == nil ? host : nil
        let connected = ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName) { certificates, promise in
                        recorded.value = certificates
                        promise.succeed(NIOSSLVerificationResult.failed)
                    }
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: host, port: port)
        guard let channel = try? await connected.get() else { return nil }
        // The handshake ends when the callback refuses the chain; the channel then closes.
        let deadline = eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
        try? await channel.closeFuture.get()
        deadline.cancel()
        let chain = try? await eventLoop.submit { () -> [NIOSSLCertificate]? in recorded.value }.get()
        return chain ?? nil
    }
}
