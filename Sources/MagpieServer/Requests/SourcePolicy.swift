import Foundation

/// Which source hosts a proxy fetches from: every host, or those matching a pattern.
/// `example.com` matches that host; `*.example.com` matches its subdomains (not the bare
/// domain). Addresses are checked separately, at connect time (``Magpie/AddressPolicy``).
public struct SourcePolicy: Sendable, Hashable {
    /// Host patterns; empty allows every host.
    public var allowedHosts: [String]

    public init(allowedHosts: [String] = []) {
        self.allowedHosts = allowedHosts.map { $0.lowercased() }
    }

    func check(_ source: URL) throws(ProxyURLError) {
        guard !allowedHosts.isEmpty else { return }
        let host = (source.host ?? "").lowercased()
        let allowed = allowedHosts.contains { pattern in
            if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst()) && host.count > pattern.count - 1 }
            return host == pattern
        }
        guard allowed else { throw .forbidden("the source host '\(host)' is not on the allow-list") }
    }
}
