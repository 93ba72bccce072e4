import Foundation

/// The two URL grammars the proxy answers on one port, told apart by their form.
enum URLGrammar: Sendable, Hashable {
    case imgproxy
    case thumbor

    /// A thumbor signature is URL-safe base64 of 20 bytes with its padding (28 characters ending
    /// in `=`), which imgproxy's unpadded ones never are. After `unsafe`, an imgproxy URL's
    /// source is `plain/…` or base64 of an http(s) URL, following option segments that hold a
    /// colon; anything else is thumbor's.
    init(_ path: String) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let signature = segments.first else {
            self = .imgproxy
            return
        }
        if signature.count == 28, signature.hasSuffix("=") {
            self = .thumbor
            return
        }
        guard signature == "unsafe" else {
            self = .imgproxy
            return
        }
        let rest = segments.dropFirst().drop { $0.contains(":") }
        guard let first = rest.first else {
            self = .thumbor
            return
        }
        if first == "plain" {
            self = .imgproxy
            return
        }
        var encoded = rest.joined()
        if let dot = encoded.firstIndex(of: ".") { encoded = String(encoded[..<dot]) }
        let decoded = Base64URL.decode(encoded).flatMap { String(bytes: $0, encoding: .utf8) }?.lowercased() ?? ""
        self = decoded.hasPrefix("http://") || decoded.hasPrefix("https://") ? .imgproxy : .thumbor
    }
}
