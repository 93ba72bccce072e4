/// Why a connection to a server failed, in words a person can act on and a reason code can
/// switch on. Carried by ``MagpieError/network(_:)``.
///
/// ```swift
/// catch MagpieError.network(let failure) where failure.reason == .certificateNotTrusted {
///     // Trust the origin's CA: Configuration.tls.trustedCertificates
/// }
/// ```
///
/// | Reason | Typical cause | Blocklisted |
/// |---|---|---|
/// | ``Reason/hostNotFound`` | DNS has no such name | no |
/// | ``Reason/connectionRefused`` | nothing listens on the port | no |
/// | ``Reason/hostUnreachable`` | no route to the host's network | no |
/// | ``Reason/connectTimedOut`` | no answer within ``ImagePipeline/Configuration/connectTimeout`` | no |
/// | ``Reason/certificateNotTrusted`` | self-signed or private CA not in the trust settings | yes |
/// | ``Reason/certificateExpired`` | the server's certificate is out of date (or not yet valid) | yes |
/// | ``Reason/certificateForAnotherHost`` | the certificate names a different host | yes |
/// | ``Reason/tlsHandshakeFailed`` | no common TLS version or cipher, client certificate refused | yes |
/// | ``Reason/trustStoreUnavailable`` | no CA bundle here (no `ca-certificates`), or the CA file cannot be read | no |
/// | ``Reason/addressNotAllowed`` | the host resolves to an address the ``AddressPolicy`` refuses | no |
/// | ``Reason/proxyFailed`` | the egress proxy refused or could not reach the origin | no |
/// | ``Reason/connectionLost`` | reset or closed before the response ended | no |
/// | ``Reason/other`` | anything else, such as a request modifier that threw | no |
///
/// Connection failures are not blocklisted: they describe the host or the network, not the
/// URL, and they fail within milliseconds (or the connect timeout), so trying again is cheap.
/// Certificate and handshake failures do not fix themselves within minutes.
public struct NetworkFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The name did not resolve.
        case hostNotFound
        /// Nothing listens on the port.
        case connectionRefused
        /// The host's network cannot be reached from here.
        case hostUnreachable
        /// No connection within ``ImagePipeline/Configuration/connectTimeout``.
        case connectTimedOut
        /// No trusted CA issued the server's certificate.
        case certificateNotTrusted
        /// The server's certificate, or one in its chain, is out of date or not yet valid.
        case certificateExpired
        /// The certificate is valid but names other hosts.
        case certificateForAnotherHost
        /// The TLS handshake failed for another reason: no common version or cipher, a
        /// refused client certificate.
        case tlsHandshakeFailed
        /// No certificate can be checked here: the system has no trust store (a container or
        /// root without the `ca-certificates` package), or a CA file trusted with
        /// ``TrustedCertificates/init(pemFileReadOnUse:)`` cannot be read. Only HTTPS loads
        /// fail, and they work again as soon as the file is there.
        case trustStoreUnavailable
        /// The host resolves only to addresses the pipeline's ``AddressPolicy`` refuses
        /// (loopback, private networks...).
        case addressNotAllowed
        /// The egress proxy could not be reached or would not open a tunnel.
        case proxyFailed
        /// The connection was reset or closed before the response ended.
        case connectionLost
        /// Anything else, such as a request modifier that threw or malformed HTTP.
        case other
    }

    /// What kind of failure this is.
    public let reason: Reason
    /// One line saying what happened, naming the host.
    public let message: String

    /// Creates a failure; `message` is shown as it is.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }

    /// Whether the failed-URL blocklist may remember the URL (see the table above).
    var isTransient: Bool {
        switch reason {
        case .certificateNotTrusted, .certificateExpired, .certificateForAnotherHost, .tlsHandshakeFailed: false
        case .hostNotFound, .addressNotAllowed, .trustStoreUnavailable, .connectionRefused, .hostUnreachable, .connectTimedOut, .proxyFailed, .connectionLost, .other: true
        }
    }
}
