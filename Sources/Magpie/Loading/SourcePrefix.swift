public import Foundation

/// A URL prefix sources must start with, as imgproxy's `IMGPROXY_ALLOWED_SOURCES` names them:
/// `https://images.example.com/`, `http://127.0.0.1:8080/photos/`, `https://*.example.com/`,
/// and for sources a ``SourceLoader`` reads, `local://` or `s3://bucket/photos/`.
/// `*` stands for any characters but `/`. The prefix is compared part by part (scheme, host
/// in its one spelling, port, then the path), never as text, so `http://a.example:8080` does not
/// let `http://a.example:8080@elsewhere/` through as a string prefix would.
public struct SourcePrefix: Sendable, Hashable, CustomStringConvertible {
    public let scheme: String
    /// Canonical host, or a pattern with `*`; empty for a prefix with none (`local://`).
    public let host: String
    /// The port, explicit or the scheme's own; 0 for schemes that are not HTTP.
    public let port: Int
    /// What the path (percent-encoded, as the URL writes it) starts with; may hold `*`.
    public let path: String

    /// Reads `text`; `nil` when it is not a URL with a scheme and, for `http` and `https`, a
    /// host.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // A `*` in the host is no URL syntax: read with a stand-in, then put back.
        guard let url = URL(string: trimmed.replacingOccurrences(of: "*", with: "magpie-any-")),
            let scheme = url.scheme?.lowercased(), trimmed.dropFirst(scheme.count).hasPrefix("://"),
            url.user == nil, url.query == nil
        else { return nil }
        let written = url.host(percentEncoded: false) ?? ""
        let defaultPort = Self.defaultPorts[scheme]
        guard defaultPort == nil || !written.isEmpty else { return nil }
        let pattern = written.replacingOccurrences(of: "magpie-any-", with: "*")
        guard let canonical = pattern.isEmpty || pattern.contains("*") ? pattern.lowercased() : SourcePolicy.canonicalHost(pattern) else { return nil }
        self.scheme = scheme
        self.host = canonical
        port = defaultPort.map { url.port ?? $0 } ?? 0
        path = url.path(percentEncoded: true).replacingOccurrences(of: "magpie-any-", with: "*")
    }

    public var description: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)\(port == (Self.defaultPorts[scheme] ?? 0) ? "" : ":\(port)")\(path)"
    }

    /// Whether `url` starts with this prefix.
    public func matches(_ url: URL) -> Bool {
        guard let urlScheme = url.scheme?.lowercased(), urlScheme == scheme, url.user == nil,
            (Self.defaultPorts[urlScheme].map { url.port ?? $0 } ?? 0) == port
        else { return false }
        let written = url.host(percentEncoded: false) ?? ""
        guard let urlHost = written.isEmpty ? "" : SourcePolicy.canonicalHost(written) else { return false }
        return Self.glob(host, matchesWhole: urlHost) && Self.glob(path, matchesStartOf: url.path(percentEncoded: true))
    }

    private static let defaultPorts = ["http": 80, "https": 443]

    private static func glob(_ pattern: String, matchesWhole text: String) -> Bool {
        glob(Array(pattern.utf8)[...], Array(text.utf8)[...], whole: true)
    }

    private static func glob(_ pattern: String, matchesStartOf text: String) -> Bool {
        glob(Array(pattern.utf8)[...], Array(text.utf8)[...], whole: false)
    }

    /// `*` matches any run of bytes without `/`; patterns are short, so backtracking is cheap.
    private static func glob(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>, whole: Bool) -> Bool {
        guard let first = pattern.first else { return !whole || text.isEmpty }
        if first == UInt8(ascii: "*") {
            var rest = text
            while true {
                if glob(pattern.dropFirst(), rest, whole: whole) { return true }
                guard let next = rest.first, next != UInt8(ascii: "/") else { return false }
                rest = rest.dropFirst()
            }
        }
        guard let head = text.first, head == first else { return false }
        return glob(pattern.dropFirst(), text.dropFirst(), whole: whole)
    }
}
