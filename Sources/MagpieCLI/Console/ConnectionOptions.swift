import ArgumentParser
import Foundation
import Magpie

/// How commands that download connect: trust, client certificate, proxy and connect timeout,
/// with curl's option names and environment variables.
struct ConnectionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Trust only the CA certificates in this PEM file, as curl does.",
            discussion: "Without it, $SSL_CERT_FILE is used the same way; without either, the system's store. Read when the first HTTPS connection is made: while it cannot be read, HTTPS loads fail and the rest work.",
            valueName: "file"))
    var cacert: String?

    @Option(help: ArgumentHelp("Client certificate (PEM) for origins that ask for one; needs --key.", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("Private key (PEM, unencrypted) of --cert.", valueName: "file"))
    var key: String?

    @Option(help: ArgumentHelp("Oldest TLS version offered.", valueName: "1.0|1.1|1.2|1.3"))
    var tlsMin: String = TLSSettings.Version.v1_2.rawValue

    @Option(help: ArgumentHelp("Seconds a connection may take to open.", valueName: "seconds"))
    var connectTimeout: Double = 5

    @Option(
        name: [.customShort("x"), .customLong("proxy")],
        help: ArgumentHelp(
            "HTTP proxy for every URL, [http://][user:password@]host[:port].",
            discussion: "Without it, $http_proxy, $HTTPS_PROXY and $ALL_PROXY are read as curl reads them.",
            valueName: "url"))
    var proxy: String?

    @Option(help: ArgumentHelp("Hosts reached without the proxy, as $NO_PROXY: example.com,10.0.0.0/8.", valueName: "list"))
    var noproxy: String?

    func validate() throws {
        if (cert == nil) != (key == nil) { throw ValidationError("--cert and --key go together.") }
        if TLSSettings.Version(rawValue: tlsMin) == nil { throw ValidationError("--tls-min must be 1.0, 1.1, 1.2 or 1.3, not '\(tlsMin)'.") }
        guard connectTimeout > 0, connectTimeout <= 600 else {
            throw ValidationError("--connect-timeout must be more than 0 and at most 600 seconds.")
        }
    }

    /// Sets the pipeline's TLS, proxy and connect timeout; a client certificate that cannot be
    /// read or a proxy that cannot be parsed is a validation error naming it.
    func apply(to configuration: inout ImagePipeline.Configuration, environment: [String: String]) throws {
        configuration.connectTimeout = .nanoseconds(Int64(connectTimeout * 1e9))
        do {
            // Read when the first HTTPS connection is made, as curl reads them: a missing file
            // (SSL_CERT_FILE handed to a container without it) fails HTTPS loads, naming it,
            // and nothing else.
            if let file = cacert ?? environment["SSL_CERT_FILE"].flatMap({ $0.isEmpty ? nil : $0 }) {
                configuration.tls.trustsSystemCertificates = false
                configuration.tls.trustedCertificates = [TrustedCertificates(pemFileReadOnUse: file)]
            }
            if let cert, let key {
                configuration.tls.clientCertificate = try ClientCertificate(certificatePEMFile: cert, privateKeyPEMFile: key)
            }
        } catch {
            throw ValidationError("\(error).")
        }
        configuration.tls.minimumVersion = TLSSettings.Version(rawValue: tlsMin) ?? .v1_2
        do {
            if let proxy {
                let server = try ProxySettings.Server(url: proxy)
                configuration.proxy = ProxySettings(http: server, https: server, bypass: ProxyBypass(noproxy ?? ""))
            } else if var settings = try ProxySettings(environment: environment) {
                if let noproxy { settings.bypass = ProxyBypass(noproxy) }
                configuration.proxy = settings
            }
        } catch {
            throw ValidationError("\(error).")
        }
    }
}
