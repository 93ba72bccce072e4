import Foundation
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

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
/// the configuration is built, not on the first load; except a CA file trusted with
/// ``TrustedCertificates/init(pemFileReadOnUse:)``, read at the first HTTPS connection, as curl
/// reads `--cacert`. Without any trust store (no system bundle, no readable CA file) only HTTPS
/// loads fail, with ``NetworkFailure/Reason/trustStoreUnavailable``.
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

    /// The same settings in NIOSSL's terms. NIOSSL reads the trust store (and any file read on
    /// use) when a client first makes an HTTPS connection, so nothing here fails without one.
    var nioConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        let extra = trustedCertificates.flatMap(\.certificates)
        let files = trustedCertificates.compactMap(\.fileReadOnUse).map { NIOSSLAdditionalTrustRoots.file($0) }
        configuration.trustRoots = trustsSystemCertificates ? .default : .certificates([])
        configuration.additionalTrustRoots = (extra.isEmpty ? [] : [.certificates(extra)]) + files
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

extension TLSSettings {
    /// Why no HTTPS origin's certificate can be checked with these settings, or `nil` when the
    /// trust store can be read: a file read on use that cannot be, or, when the system's store
    /// is trusted, none where NIOSSL looks for it. Asked after an HTTPS load fails, so that the
    /// failure names the missing file rather than a BoringSSL error.
    var trustStoreProblem: String? {
        for path in trustedCertificates.compactMap(\.fileReadOnUse) where access(path, R_OK) != 0 {
            return "cannot read \(path), the CA certificates HTTPS origins are checked against"
        }
        if trustsSystemCertificates, !SystemTrustStore.isPresent {
            return "this system has no CA certificates to check it with (no \(SystemTrustStore.bundles[0]): "
                + "install the ca-certificates package, or trust a CA file with SSL_CERT_FILE or --cacert)"
        }
        return nil
    }
}

/// Where NIOSSL looks for the system's trust store on Linux (its `LinuxCABundle.swift`): a
/// bundle file, else a folder of certificates named by their hash.
private enum SystemTrustStore {
    static let bundles = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"]
    static let folder = "/etc/ssl/certs"

    /// A bundle can be read, or the folder holds a hashed certificate (`5ed36f99.0`): an empty
    /// /etc/ssl/certs, which OpenSSL's package leaves, trusts nothing.
    static var isPresent: Bool {
        if bundles.contains(where: { access($0, R_OK) == 0 }) { return true }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.contains { $0.hasSuffix(".0") }
    }
}

/// Certificate authorities to trust, read from PEM.
public struct TrustedCertificates: Sendable {
    let certificates: [NIOSSLCertificate]
    /// A file (or folder) read when the first HTTPS connection is made, not now.
    let fileReadOnUse: String?

    /// Reads every certificate in a PEM file (a CA bundle or a single certificate).
    public init(pemFile path: String) throws(TLSSettingsError) {
        try self.init(pem: PEMFile.read(path), source: path)
    }

    /// The certificates of a PEM file (or of a folder of them, named as `c_rehash` names
    /// them), read when the pipeline first connects over HTTPS rather than now, as curl reads
    /// `--cacert` and `SSL_CERT_FILE`: while the file cannot be read, HTTPS loads fail with
    /// ``NetworkFailure/Reason/trustStoreUnavailable`` naming it, and everything else works.
    /// For a file that a service is handed but that may be missing where it runs (a container
    /// without a CA bundle); ``init(pemFile:)`` fails at once instead.
    public init(pemFileReadOnUse path: String) {
        certificates = []
        fileReadOnUse = path
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
        fileReadOnUse = nil
    }

    /// How many certificates were read: none yet for ``init(pemFileReadOnUse:)``.
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
