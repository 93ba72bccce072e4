import Crypto
public import Foundation
import Magpie
import SwiftASN1
import X509

/// A certificate authority made for one test run, and the certificates it issues, written as
/// PEM files into a folder of its own: a server certificate for loopback, one that has
/// expired, one for another host, and a client certificate.
public struct ThrowawayCA {
    /// A certificate and its private key as PEM files.
    public struct Issued: Sendable {
        /// The certificate, PEM.
        public let certificateFile: URL
        /// Its unencrypted private key, PEM (PKCS #8).
        public let keyFile: URL
    }

    /// The folder holding every file.
    public let folder: URL
    /// The CA's certificate, to trust.
    public let certificateFile: URL

    private let key: P256.Signing.PrivateKey
    private let name: DistinguishedName

    /// Makes a CA named `name` in a new temporary folder.
    public init(name commonName: String = "Magpie Throwaway CA") throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-ca-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        key = P256.Signing.PrivateKey()
        name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(key))
        certificateFile = folder.appendingPathComponent("ca.pem")
        try Self.write(try certificate.serializeAsPEM().pemString, to: certificateFile)
    }

    /// Issues a server certificate for `hosts` (names or IP addresses) valid from
    /// `notBefore` to `notAfter`, written as `<file>.pem` and `<file>.key`.
    public func issueServer(
        hosts: [String] = ["localhost", "127.0.0.1", "::1"], file: String = "server",
        notBefore: Date = Date().addingTimeInterval(-3600), notAfter: Date = Date().addingTimeInterval(86_400)
    ) throws -> Issued {
        let names = hosts.map { host -> GeneralName in
            if let address = IPAddressBytes(host) { return .ipAddress(ASN1OctetString(contentBytes: address.bytes[...])) }
            return .dnsName(host)
        }
        return try issue(
            commonName: hosts.first ?? "server", file: file, notBefore: notBefore, notAfter: notAfter,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            })
    }

    /// Issues a client certificate, written as `<file>.pem` and `<file>.key`.
    public func issueClient(commonName: String = "magpie-client", file: String = "client") throws -> Issued {
        try issue(
            commonName: commonName, file: file, notBefore: Date().addingTimeInterval(-3600),
            notAfter: Date().addingTimeInterval(86_400),
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.clientAuth])
            })
    }

    private func issue(
        commonName: String, file: String, notBefore: Date, notAfter: Date, extensions: Certificate.Extensions
    ) throws -> Issued {
        let leafKey = P256.Signing.PrivateKey()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(leafKey.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter,
            issuer: name, subject: try DistinguishedName { CommonName(commonName) },
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(key))
        let issued = Issued(
            certificateFile: folder.appendingPathComponent("\(file).pem"), keyFile: folder.appendingPathComponent("\(file).key"))
        try Self.write(try certificate.serializeAsPEM().pemString, to: issued.certificateFile)
        try Self.write(leafKey.pemRepresentation, to: issued.keyFile)
        return issued
    }

    /// Removes the folder.
    public func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    private static func write(_ text: String, to file: URL) throws {
        try Data((text + "\n").utf8).write(to: file)
    }
}
