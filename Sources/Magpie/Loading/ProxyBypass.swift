import Foundation

/// Hosts that skip the proxy, written as curl's `NO_PROXY`: entries separated by commas or
/// spaces; `*` alone matches every host; a name matches itself and every subdomain, with or
/// without a leading dot (`example.com` and `.example.com` both match `img.example.com`);
/// an IP address matches itself and an address with a prefix length (`10.0.0.0/8`, `fd00::/8`)
/// every address in that range. Case does not matter and ports are ignored.
public struct ProxyBypass: Sendable, Hashable {
    private enum Entry: Sendable, Hashable {
        case everything
        case domain(String)
        case network(IPAddressBytes, prefixLength: Int)
    }

    private let entries: [Entry]

    /// Reads a `NO_PROXY` value.
    public init(_ value: String) {
        entries = value.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).compactMap { Self.entry(String($0)) }
    }

    /// Whether `host` (a name or an address, brackets around IPv6 allowed) skips the proxy.
    public func matches(host: String) -> Bool {
        let host = Self.bare(host).lowercased()
        let address = IPAddressBytes(host)
        return entries.contains { entry in
            switch entry {
            case .everything: true
            case .domain(let domain): host == domain || host.hasSuffix("." + domain)
            case .network(let network, let prefixLength): address.map { network.contains($0, prefixLength: prefixLength) } ?? false
            }
        }
    }

    private static func entry(_ text: String) -> Entry? {
        if text == "*" { return .everything }
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        let name = bare(parts[0])
        if let address = IPAddressBytes(name) {
            let bits = address.bytes.count * 8
            let prefixLength = parts.count == 2 ? Int(parts[1]).map { min(max($0, 0), bits) } : bits
            return prefixLength.map { .network(address, prefixLength: $0) }
        }
        var domain = name.lowercased()
        while domain.hasPrefix(".") { domain.removeFirst() }
        return domain.isEmpty ? nil : .domain(domain)
    }

    /// The host without IPv6 brackets or a port.
    private static func bare(_ host: String) -> String {
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            return String(host[host.index(after: host.startIndex)..<end])
        }
        if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            return String(host[..<colon])
        }
        return host
    }
}

