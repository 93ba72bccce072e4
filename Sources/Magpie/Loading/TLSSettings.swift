import Foundation
import NIOSSL

/// Which certificates a pipeline trusts and shows when it connects over HTTPS.
///
/// The defaults trust the system's certificate store and offer TLS 1.2 or newer. An origin
/// behind a private CA needs its CA added; an origin that asks for a client certificate needs
/// ``clientCertificate``:
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.tls.trustedCertificates = [try TrustedCertificates(pemFile: "/etc/magpie/origin-ca.pem")]
/// configuration.tls.clientCertificate = try ClientCertificate(
///     certificatePEMFile: "/etc/magpie/client.pem", privateKeyPEMFile: "/etc/magpie/client.key")
/// ```
///
/// Files are read when the value is created, so a missing or malformed file is an error where
/// the configuration is built, not on the first load.
public struct TLSSettings: Sendable {
    /// The oldest TLS version offered.
    public enum Version: String, Sendable, CaseIterable {
        /// TLS 1.0, for origins that offer nothing newer.
        case v1_0 = "1.0"
        /// TLS 1.1.
        case v1_1 = "1.1"
        /// TLS 1.2, the default minimum.
        case v1_2 = "1.2"
        /// TLS 1.3 only.
        case v1_3 = "1.3"
    }

    /// Whether the system's certificate store is trusted; `false` trusts only
    /// ``trustedCertificates``.
    public var trustsSystemCertificates = true
    /// Certificate authorities trusted besides (or, see ``trustsSystemCertificates``, instead
    /// of) the system's.
    public var trustedCertificates: [TrustedCertificates] = []
    /// Shown to origins that ask for a client certificate.
    public var clientCertificate: ClientCertificate?
    /// The oldest TLS version offered. TLS 1.0 and 1.1 are off by default, as in browsers and
    /// OpenSSL 3.
    public var minimumVersion = Version.v1_2

    /// The system's store, TLS 1.2 or newer, no client certificate.
    public init() {}

    /// The same settings in NIOSSL's terms.
    var nioConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        let extra = trustedCertificates.flatMap(\.certificates)
        if trustsSystemCertificates {
            configuration.trustRoots = .default
            if !extra.isEmpty { configuration.additionalTrustRoots = [.certificates(extra)] }
        } else {
            configuration.trustRoots = .certificates(extra)
        }
        if let clientCertificate {
            configuration.certificateChain = clientCertificate.chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(clientCertificate.privateKey)
        }
        configuration.minimumTLSVersion =
            switch minimumVersion {
            case .v1_0: .tlsv1
            case .v1_1: .tlsv11
            case .v1_2: .tlsv12
            case .v1_3: .tlsv13
            }
        return configuration
    }
}

/// Certificate authorities to trust, read from PEM.
public struct TrustedCertificates: Sendable {
    let certificates: [NIOSSLCertificate]

    /// Reads every certificate in a PEM file (a CA bundle or a single certificate).
    public init(pemFile path: String) throws(TLSSettingsError) {
        try self.init(pem: PEMFile.read(path), source: path)
    }

    /// Reads every certificate in PEM text.
    public init(pem: [UInt8]) throws(TLSSettingsError) {
        try self.init(pem: pem, source: "the PEM bytes")
    }

    private init(pem: [UInt8], source: String) throws(TLSSettingsError) {
        guard let certificates = try? NIOSSLCertificate.fromPEMBytes(pem), !certificates.isEmpty else {
            throw TLSSettingsError("no PEM certificate in \(source)")
        }
        self.certificates = certificates
    }

    /// How many certificates were read.
    public var count: Int { certificates.count }
}

/// A certificate, with its chain, and the private key that goes with it, read from PEM.
public struct ClientCertificate: Sendable {
    let chain: [NIOSSLCertificate]
    let privateKey: NIOSSLPrivateKey

    /// Reads the certificate (followed by any intermediates) and an unencrypted private key.
    public init(certificatePEMFile: String, privateKeyPEMFile: String) throws(TLSSettingsError) {
        try self.init(
            certificatePEM: PEMFile.read(certificatePEMFile), privateKeyPEM: PEMFile.read(privateKeyPEMFile),
            sources: (certificatePEMFile, privateKeyPEMFile))
    }

    /// Reads the certificate (followed by any intermediates) and an unencrypted private key.
    public init(certificatePEM: [UInt8], privateKeyPEM: [UInt8]) throws(TLSSettingsError) {
        try self.init(
            certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM,
            sources: ("the certificate's PEM bytes", "the key's PEM bytes"))
    }

    private init(certificatePEM: [UInt8], privateKeyPEM: [UInt8], sources: (String, String)) throws(TLSSettingsError) {
        guard let chain = try? NIOSSLCertificate.fromPEMBytes(certificatePEM), !chain.isEmpty else {
            throw TLSSettingsError("no PEM certificate in \(sources.0)")
        }
        guard let key = try? NIOSSLPrivateKey(bytes: privateKeyPEM, format: .pem) else {
            throw TLSSettingsError("no unencrypted PEM private key in \(sources.1)")
        }
        // Building a context is where BoringSSL checks that the key belongs to the certificate.
        var check = TLSConfiguration.makeClientConfiguration()
        check.trustRoots = .certificates([])
        check.certificateChain = chain.map { .certificate($0) }
        check.privateKey = .privateKey(key)
        guard (try? NIOSSLContext(configuration: check)) != nil else {
            throw TLSSettingsError("the private key in \(sources.1) does not belong to the certificate in \(sources.0)")
        }
        self.chain = chain
        self.privateKey = key
    }
}

/// A TLS setting that cannot be used: a file that cannot be read or holds no certificate.
public struct TLSSettingsError: Error, Sendable, CustomStringConvertible {
    /// One line saying what is wrong, naming the file.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

private enum PEMFile {
    static func read(_ path: String) throws(TLSSettingsError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TLSSettingsError("cannot read \(path)")
        }
        return Array(data)
    }
}
