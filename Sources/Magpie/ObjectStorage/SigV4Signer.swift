import Crypto
import Foundation

/// Signs requests with AWS Signature Version 4, in the `Authorization` header, as S3 and the
/// stores speaking its protocol check them.
struct SigV4Signer: Sendable {
    /// What is signed of one request.
    struct Request: Sendable {
        var method: String
        /// The path as sent, already percent-encoded: S3 signs it as it is, never normalised.
        var path: String
        /// The query's names and values, not yet encoded.
        var query: [(name: String, value: String)] = []
        /// The headers signed and sent, `Host` among them.
        var headers: [(name: String, value: String)]
        /// The body's SHA-256 in lowercase hex.
        var payloadHash: String
    }

    let credentials: AWSCredentials
    let region: String
    let service: String

    /// The SHA-256 of no bytes, the payload hash of a request without a body.
    static let emptyPayloadHash = DiskEntryFormat.sha256Hex([UInt8]())

    /// The headers to send beside `request`'s own: `X-Amz-Date`, `X-Amz-Security-Token` for
    /// temporary credentials, and `Authorization`, which signs them all.
    func signingHeaders(for request: Request, at date: Date) -> [(name: String, value: String)] {
        let timestamp = Self.timestamp(date)
        let day = String(timestamp.prefix(8))
        var added = [(name: "X-Amz-Date", value: timestamp)]
        if let token = credentials.sessionToken { added.append((name: "X-Amz-Security-Token", value: token)) }
        let (canonical, signedHeaders) = canonicalRequest(request, adding: added)
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", timestamp, scope, DiskEntryFormat.sha256Hex(canonical)].joined(separator: "\n")
        let signature = DiskEntryFormat.hex(Self.hmac(signingKey(day: day), stringToSign))
        added.append(
            (
                name: "Authorization",
                value: "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
            ))
        return added
    }

    /// The canonical request and the signed header names, joined by `;`.
    func canonicalRequest(_ request: Request, adding added: [(name: String, value: String)]) -> (String, String) {
        // Names lowercased and sorted; a repeated name's values joined by commas in the order
        // they came; each value trimmed with its runs of spaces made one. The signer's own
        // headers replace any the caller set.
        let replaced = Set(added.map { $0.name.lowercased() })
        var values: [String: [String]] = [:]
        for (name, value) in request.headers where !replaced.contains(name.lowercased()) {
            values[name.lowercased(), default: []].append(Self.trimmed(value))
        }
        for (name, value) in added { values[name.lowercased(), default: []].append(Self.trimmed(value)) }
        let names = values.keys.sorted()
        let headers = names.map { "\($0):\(values[$0, default: []].joined(separator: ","))\n" }.joined()
        let encodedQuery: [(name: String, value: String)] = request.query.map { (name: Self.uriEncode($0.name), value: Self.uriEncode($0.value)) }
        let sortedQuery = encodedQuery.sorted { $0.name != $1.name ? $0.name < $1.name : $0.value < $1.value }
        let query = sortedQuery.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let signedHeaders = names.joined(separator: ";")
        let canonical = [request.method.uppercased(), request.path, query, headers, signedHeaders, request.payloadHash]
            .joined(separator: "\n")
        return (canonical, signedHeaders)
    }

    private static func trimmed(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    private func signingKey(day: String) -> [UInt8] {
        let date = Self.hmac(Array("AWS4\(credentials.secretAccessKey)".utf8), day)
        return Self.hmac(Self.hmac(Self.hmac(date, region), service), "aws4_request")
    }

    /// Percent-encodes everything but the unreserved characters (`A-Z a-z 0-9 - _ . ~`), and
    /// `/` too when `keepingSlashes`: the encoding S3 signs keys and query values with.
    static func uriEncode(_ text: String, keepingSlashes: Bool = false) -> String {
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(UnicodeScalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                encoded.append("/")
            default:
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }

    /// `20150830T123600Z`: the signing time in UTC.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { String(value).leftPadded(to: 2) }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    private static func hmac(_ key: [UInt8], _ message: String) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(message.utf8), using: SymmetricKey(data: key)))
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
