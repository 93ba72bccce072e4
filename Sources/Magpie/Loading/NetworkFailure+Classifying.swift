import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

extension NetworkFailure {
    /// Where a connection was going, for the words of the message.
    struct Destination: Sendable {
        var host: String
        var port: Int
        var proxy: ProxySettings.Server?
        var connectTimeout: Duration

        var hostAndPort: String { Self.hostAndPort(host, port) }

        /// `host:port`, with brackets around an IPv6 address.
        static func hostAndPort(_ host: String, _ port: Int) -> String {
            host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
    }

    /// Reads what SwiftNIO, NIOSSL or AsyncHTTPClient threw while connecting or exchanging, and
    /// says it in one line without library internals; `nil` for errors that are not about the
    /// connection (cancellation, read timeouts).
    init?(classifying error: any Error, to destination: Destination) {
        if let proxy = destination.proxy, Self.isAboutProxy(error, proxy) {
            let toProxy = Destination(host: proxy.host, port: proxy.port, proxy: nil, connectTimeout: destination.connectTimeout)
            let what: String? =
                switch Self.describe(error, to: toProxy)?.0 {
                case .hostNotFound: "host not found"
                case .connectionRefused: "connection refused"
                case .hostUnreachable: "no route to it"
                case .connectTimedOut: "connecting timed out after \(destination.connectTimeout.formattedSeconds)"
                default: nil
                }
            if let what {
                self.init(.proxyFailed, "cannot reach the proxy \(proxy): \(what)")
                return
            }
        }
        guard let (reason, what) = Self.describe(error, to: destination) else { return nil }
        self.init(reason, what)
    }

    private static func describe(_ error: any Error, to destination: Destination) -> (Reason, String)? {
        let place = destination.hostAndPort
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first {
                return describe(first.error, to: destination)
            }
            return (.hostNotFound, "host not found: \(error.host)")
        }
        if let error = error as? SocketAddressError.UnknownHost {
            return (.hostNotFound, "host not found: \(error.host)")
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED: return (.connectionRefused, "connection refused by \(place)")
            case ETIMEDOUT: return (.connectTimedOut, connectTimedOut(place, destination))
            case ENETUNREACH, EHOSTUNREACH: return (.hostUnreachable, "no route to \(place)")
            case ECONNRESET, EPIPE: return (.connectionLost, "the connection to \(place) was reset")
            default: return (.other, "cannot talk to \(place): \(String(cString: strerror(error.errnoCode)))")
            }
        }
        if let error = error as? HTTPParserError {
            if case .invalidEOFState = error {
                return (.connectionLost, "\(place) closed the connection before the response ended")
            }
            return (.other, "\(place) sent malformed HTTP (\(error))")
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return (.connectTimedOut, connectTimedOut(place, destination))
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return (.certificateForAnotherHost, "the certificate of \(place) is for another host, not \(destination.host)")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return (.connectTimedOut, connectTimedOut(place, destination))
            case .tlsHandshakeTimeout:
                return (.tlsHandshakeFailed, "the TLS handshake with \(place) timed out")
            case .remoteConnectionClosed:
                return (.connectionLost, "\(place) closed the connection before the response ended")
            case .bodyLengthMismatch:
                return (.connectionLost, "the body length does not match Content-Length")
            case .proxyAuthenticationRequired:
                return (.proxyFailed, "the proxy \(destination.proxy?.description ?? "") asks for credentials (407)")
            case .invalidProxyResponse:
                return (.proxyFailed, "the proxy \(destination.proxy?.description ?? "") refused the tunnel to \(place) (check its credentials and rules)")
            case .httpProxyHandshakeTimeout:
                return (.proxyFailed, "the proxy \(destination.proxy?.description ?? "") did not open the tunnel to \(place) in time")
            default:
                return nil
            }
        }
        if let token = boringSSLReason(in: error) {
            if token == "CERTIFICATE_VERIFY_FAILED" {
                return (.certificateNotTrusted, "the certificate of \(place) is not trusted")
            }
            return (.tlsHandshakeFailed, "the TLS handshake with \(place) failed: \(words(token))")
        }
        if let error = error as? NIOSSLError {
            switch error {
            case .uncleanShutdown:
                return (.connectionLost, "\(place) closed the TLS connection without closing TLS first")
            default:
                return (.tlsHandshakeFailed, "the TLS handshake with \(place) failed")
            }
        }
        return nil
    }

    private static func connectTimedOut(_ place: String, _ destination: Destination) -> String {
        "connecting to \(place) timed out after \(destination.connectTimeout.formattedSeconds)"
    }

    /// NIO reports the address it was connecting to; when it is the proxy's, the proxy failed.
    private static func isAboutProxy(_ error: any Error, _ proxy: ProxySettings.Server) -> Bool {
        if let error = error as? NIOConnectionError { return error.host == proxy.host }
        if let error = error as? SocketAddressError.UnknownHost { return error.host == proxy.host }
        // Refused and timed-out connects are to the first hop, which is the proxy.
        return !(error is HTTPClientError) || [.connectTimeout, .getConnectionFromPoolTimeout].contains(error as? HTTPClientError)
    }

    /// BoringSSL's reason code (`CERTIFICATE_VERIFY_FAILED`, `TLSV1_ALERT_PROTOCOL_VERSION`),
    /// taken from NIOSSL's description, which also holds an error number and a source path.
    private static func boringSSLReason(in error: any Error) -> String? {
        guard error is NIOSSLError || error is BoringSSLError else { return nil }
        let text = String(describing: error)
        guard let marker = text.range(of: "OPENSSL_internal:") else { return nil }
        let token = text[marker.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
        return token.isEmpty ? nil : String(token)
    }

    /// `TLSV1_ALERT_PROTOCOL_VERSION` → "the server sent the alert protocol version".
    private static func words(_ token: String) -> String {
        for prefix in ["TLSV1_ALERT_", "SSLV3_ALERT_", "TLSV13_ALERT_"] where token.hasPrefix(prefix) {
            return "the server sent the alert \(token.dropFirst(prefix.count).lowercased().replacingOccurrences(of: "_", with: " "))"
        }
        return token.lowercased().replacingOccurrences(of: "_", with: " ")
    }
}

extension Duration {
    /// "5 s", "0.25 s".
    var formattedSeconds: String {
        timeInterval == timeInterval.rounded() ? "\(Int(timeInterval)) s" : "\(timeInterval) s"
    }
}
