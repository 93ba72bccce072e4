public import Foundation

/// Which hosts images may come from: every host, or those on an allow-list. The pipeline checks
/// it on the requested URL, on every redirect before following it, and on the redirects a
/// disk-cache entry was fetched through, so an allowed host with an open redirect cannot hand a
/// load to a host off the list. Addresses are a separate check, made at connect time
/// (``AddressPolicy``).
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.sourcePolicy = SourcePolicy(allowedHosts: ["images.example.com", "*.cdn.example.net"])
/// ```
///
/// `example.com` allows that host only; `*.example.com` allows its subdomains, not the bare
/// domain. Hosts compare in one spelling: case, a trailing dot, percent-encoding, brackets and
/// the many ways to write an IP address (`2130706433`, `0x7f.1`, `[::FFFF:7f00:1]`) do not
/// matter, but a name and its address are different hosts: allowing `localhost` does not allow
/// `127.0.0.1`.
public struct SourcePolicy: Sendable, Hashable {
    /// Host patterns, in their canonical spelling; with ``allowedPrefixes`` empty too, every
    /// host is allowed.
    public let allowedHosts: [String]
    /// URL prefixes (imgproxy's allowed sources): a URL starting with one is allowed whatever
    /// ``allowedHosts`` says.
    public let allowedPrefixes: [SourcePrefix]

    /// Creates a policy; empty lists allow every host. Patterns that are not host names or
    /// addresses match nothing.
    public init(allowedHosts: [String] = [], allowedPrefixes: [SourcePrefix] = []) {
        self.allowedHosts = allowedHosts.map { pattern in
            if pattern.hasPrefix("*.") { return "*." + (Self.canonicalHost(String(pattern.dropFirst(2))) ?? "") }
            return Self.canonicalHost(pattern) ?? ""
        }
        self.allowedPrefixes = allowedPrefixes
    }

    /// Every host.
    public static let anyHost = SourcePolicy()

    /// Whether the policy lets every host through.
    public var allowsEveryHost: Bool { allowedHosts.isEmpty && allowedPrefixes.isEmpty }

    /// Whether images may come from `url`: its host is allowed, or it starts with an allowed
    /// prefix.
    public func allows(_ url: URL) -> Bool {
        guard !allowsEveryHost else { return true }
        if allowedPrefixes.contains(where: { $0.matches(url) }) { return true }
        return !allowedHosts.isEmpty && allows(host: url.host(percentEncoded: false) ?? "")
    }

    /// Whether images may come from `host` (as a URL writes it).
    /// ``allowedPrefixes`` need the whole URL: see ``allows(_:)``.
    public func allows(host: String) -> Bool {
        guard !allowsEveryHost else { return true }
        guard let host = Self.canonicalHost(host) else { return false }
        let isAddress = IPAddressBytes(host) != nil
        return allowedHosts.contains { pattern in
            if pattern.hasPrefix("*.") {
                let suffix = pattern.dropFirst()
                return !isAddress && suffix.count > 1 && host.count > suffix.count && host.hasSuffix(suffix)
            }
            return host == pattern
        }
    }

    /// Refuses `url` with ``MagpieError/sourceNotAllowed(host:hop:url:)`` when its host is not
    /// allowed: the check the pipeline makes before loading, for code that wants to answer
    /// sooner (a server refusing a request before queueing it).
    public func check(_ url: URL) throws(MagpieError) {
        try SourceRules(self, request: nil).check(url, hop: 0, of: url)
    }

    /// The host of `url` in its canonical spelling, for error messages.
    static func displayHost(of url: URL) -> String {
        let host = url.host(percentEncoded: false) ?? ""
        return canonicalHost(host) ?? host
    }

    /// One spelling per host: lower case, no trailing dot, no brackets or percent-encoding, and
    /// IP addresses as `inet_ntop` writes them after reading them as the resolver does
    /// (`inet_aton` accepts `127.1`, `0x7f000001` and `2130706433`). `nil` when the text cannot
    /// be a host: empty, not UTF-8 once decoded, or holding characters no host name has.
    static func canonicalHost(_ text: String) -> String? {
        var host = text.removingPercentEncoding ?? text
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty, host.unicodeScalars.allSatisfy({ !$0.properties.isWhitespace && $0 != "%" && $0 != "/" && $0 != "@" }) else {
            return nil
        }
        if host.contains(":") {
            // An IPv6 literal; a zone (`fe80::1%25eth0`) names an interface, not a host.
            return IPAddressBytes(host)?.description
        }
        if let address = IPAddressBytes(resolverIPv4: host) { return address.description }
        return host
    }
}

/// The source policies one load obeys together: the pipeline's and the request's own.
struct SourceRules: Sendable, Hashable {
    let policies: [SourcePolicy]

    init(_ configuration: SourcePolicy, request: SourcePolicy?) {
        policies = [configuration, request].compactMap { $0 }.filter { !$0.allowsEveryHost }
    }

    /// Refuses `url`, reached at `hop` (0: the requested URL) of a load of `requested`, when
    /// its host is not allowed.
    func check(_ url: URL, hop: Int, of requested: URL) throws(MagpieError) {
        guard !policies.isEmpty else { return }
        if policies.contains(where: { !$0.allows(url) }) {
            throw .sourceNotAllowed(host: SourcePolicy.displayHost(of: url), hop: hop, url: requested)
        }
    }

    /// Refuses bytes from the disk cache that were fetched through a redirect to a host these
    /// rules do not allow.
    func check(redirects: [URL], of requested: URL) throws(MagpieError) {
        for (index, url) in redirects.enumerated() { try check(url, hop: index + 1, of: requested) }
    }
}
