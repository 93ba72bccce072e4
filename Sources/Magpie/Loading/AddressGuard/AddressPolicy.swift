import Foundation
import CMagpieSystem
import Glibc

/// Which network addresses a pipeline may connect to, checked on the address each connection
/// actually opens: after DNS resolution, for the first request and for every redirect. A host
/// that resolves to a refused address fails with ``NetworkFailure/Reason/addressNotAllowed``,
/// so a URL cannot reach the machine's own services or its private network however its name
/// resolves, even when the name is rebound between two lookups.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.addressPolicy = .publicOnly   // what an image proxy wants
/// ```
///
/// Without a policy (the default) the pipeline connects wherever DNS says. With an egress
/// proxy (``ImagePipeline/Configuration/proxy``) the proxy connects, so the policy applies to
/// direct connections only.
public struct AddressPolicy: Sendable, Hashable {
    /// Groups of addresses that are refused unless allowed.
    public struct Ranges: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// `127.0.0.0/8` and `::1`: this machine.
        public static let loopback = Ranges(rawValue: 1 << 0)
        /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` and unique-local `fc00::/7`.
        public static let privateNetworks = Ranges(rawValue: 1 << 1)
        /// `169.254.0.0/16` and `fe80::/10`, where cloud metadata services answer.
        public static let linkLocal = Ranges(rawValue: 1 << 2)
        /// `100.64.0.0/10`, carrier-grade NAT.
        public static let sharedAddressSpace = Ranges(rawValue: 1 << 3)
    }

    /// The ranges connections may reach besides public addresses.
    public var allowed: Ranges

    /// Creates a policy that refuses every non-public address except those in `allowed`.
    /// Unspecified, multicast, broadcast, documentation and other reserved addresses are
    /// always refused.
    public init(allowing allowed: Ranges = []) {
        self.allowed = allowed
    }

    /// Public addresses only.
    public static let publicOnly = AddressPolicy()

    /// Why the policy refuses `address` (an IPv4 or IPv6 address in text), or `nil` when it
    /// allows it. Text that is not an IP address is refused.
    public func refusal(for address: String) -> String? {
        guard let bytes = IPAddressBytes(address) else { return "'\(address)' is not an IP address" }
        return refusal(for: bytes)
    }

    func refusal(for address: IPAddressBytes) -> String? {
        guard let kind = AddressKind(address) else { return nil }
        if let range = kind.range, allowed.contains(range) { return nil }
        return "\(address) is \(kind.description), which the address policy refuses"
    }
}

/// What a non-public address is, and the range that can allow it (`nil` when nothing can).
private enum AddressKind: CustomStringConvertible {
    case loopback, privateNetwork, linkLocal, sharedAddressSpace, reserved(String)
    /// An IPv4 address written inside an IPv6 one (mapped, NAT64, 6to4), judged as IPv4.
    indirect case embedded(AddressKind, IPAddressBytes)

    init?(_ address: IPAddressBytes) {
        if address.isIPv4 {
            guard let kind = Self.ipv4(address) else { return nil }
            self = kind
            return
        }
        if let inner = Self.embeddedIPv4(in: address) {
            guard let kind = Self.ipv4(inner) else { return nil }
            self = .embedded(kind, inner)
            return
        }
        guard let kind = Self.ipv6(address) else { return nil }
        self = kind
    }

    var range: AddressPolicy.Ranges? {
        switch self {
        case .loopback: .loopback
        case .privateNetwork: .privateNetworks
        case .linkLocal: .linkLocal
        case .sharedAddressSpace: .sharedAddressSpace
        case .reserved: nil
        case .embedded(let kind, _): kind.range
        }
    }

    var description: String {
        switch self {
        case .loopback: "a loopback address"
        case .privateNetwork: "a private-network address"
        case .linkLocal: "a link-local address"
        case .sharedAddressSpace: "a carrier-grade NAT address"
        case .reserved(let what): what
        case .embedded(let kind, let inner): "\(kind) (IPv4 \(inner) inside IPv6)"
        }
    }

    private static func ipv4(_ a: IPAddressBytes) -> AddressKind? {
        let table: [([UInt8], Int, AddressKind)] = [
            ([127, 0, 0, 0], 8, .loopback),
            ([10, 0, 0, 0], 8, .privateNetwork),
            ([172, 16, 0, 0], 12, .privateNetwork),
            ([192, 168, 0, 0], 16, .privateNetwork),
            ([169, 254, 0, 0], 16, .linkLocal),
            ([100, 64, 0, 0], 10, .sharedAddressSpace),
            ([0, 0, 0, 0], 8, .reserved("an unspecified (\"this network\") address")),
            ([192, 0, 0, 0], 24, .reserved("an IETF protocol address")),
            ([192, 0, 2, 0], 24, .reserved("a documentation address")),
            ([198, 51, 100, 0], 24, .reserved("a documentation address")),
            ([203, 0, 113, 0], 24, .reserved("a documentation address")),
            ([198, 18, 0, 0], 15, .reserved("a benchmarking address")),
            ([224, 0, 0, 0], 4, .reserved("a multicast address")),
            ([240, 0, 0, 0], 4, .reserved("a reserved or broadcast address")),
        ]
        return table.first { a.starts(with: $0.0, bits: $0.1) }?.2
    }

    private static func ipv6(_ a: IPAddressBytes) -> AddressKind? {
        var loopback = [UInt8](repeating: 0, count: 16)
        loopback[15] = 1
        if a.bytes == loopback { return .loopback }
        if a.bytes.allSatisfy({ $0 == 0 }) { return .reserved("the unspecified address") }
        let table: [([UInt8], Int, AddressKind)] = [
            ([0xfc] + zeros(15), 7, .privateNetwork),
            ([0xfe, 0x80] + zeros(14), 10, .linkLocal),
            ([0xfe, 0xc0] + zeros(14), 10, .reserved("a site-local address")),
            ([0xff] + zeros(15), 8, .reserved("a multicast address")),
            ([0x20, 0x01, 0x0d, 0xb8] + zeros(12), 32, .reserved("a documentation address")),
            ([0x01, 0x00] + zeros(14), 64, .reserved("a discard-only address")),
            // Teredo hides the client's IPv4 address XOR-ed; nothing public needs to be reached that way.
            ([0x20, 0x01, 0x00, 0x00] + zeros(12), 32, .reserved("a Teredo tunnel address")),
            (zeros(16), 96, .reserved("an IPv4-compatible address")),
        ]
        return table.first { a.starts(with: $0.0, bits: $0.1) }?.2
    }

    /// The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::/96`) or
    /// 6to4 (`2002:aabb:ccdd::/48`) address.
    private static func embeddedIPv4(in a: IPAddressBytes) -> IPAddressBytes? {
        if a.starts(with: zeros(10) + [0xff, 0xff] + zeros(4), bits: 96) || a.starts(with: [0, 0x64, 0xff, 0x9b] + zeros(12), bits: 96) {
            return IPAddressBytes(bytes: Array(a.bytes[12..<16]))
        }
        if a.starts(with: [0x20, 0x02] + zeros(14), bits: 16) {
            return IPAddressBytes(bytes: Array(a.bytes[2..<6]))
        }
        return nil
    }

    private static func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }
}

/// An IPv4 (4 bytes) or IPv6 (16 bytes) address, for matching against networks.
package struct IPAddressBytes: Sendable, Hashable, CustomStringConvertible {
    package let bytes: [UInt8]

    /// Parses an address in text; IPv6 may be written in brackets, as in URLs.
    package init?(_ text: String) {
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        var v4 = [UInt8](repeating: 0, count: 4)
        var v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET, bare, &v4) == 1 {
            bytes = v4
        } else if inet_pton(AF_INET6, bare, &v6) == 1 {
            bytes = v6
        } else {
            return nil
        }
    }

    /// Reads IPv4 text as the system resolver does (`inet_aton`), which also accepts the
    /// shorter, octal, hexadecimal and single-number spellings (`127.1`, `0177.0.0.1`,
    /// `2130706433`): a URL can name an address in any of them.
    init?(resolverIPv4 text: String) {
        var address = [UInt8](repeating: 0, count: 4)
        guard magpie_parse_ipv4(text, &address) == 1 else { return nil }
        bytes = address
    }

    init(bytes: [UInt8]) {
        precondition(bytes.count == 4 || bytes.count == 16)
        self.bytes = bytes
    }

    var isIPv4: Bool { bytes.count == 4 }

    package var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv4 ? AF_INET : AF_INET6
        bytes.withUnsafeBytes { _ = inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `other` is in the network of this address with the given prefix length.
    func contains(_ other: IPAddressBytes, prefixLength: Int) -> Bool {
        guard other.bytes.count == bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(bytes, other.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            guard mine & mask == theirs & mask else { return false }
            remaining -= 8
        }
        return true
    }

    /// Whether the first `bits` bits equal those of `prefix`.
    func starts(with prefix: [UInt8], bits: Int) -> Bool {
        IPAddressBytes(bytes: prefix).contains(self, prefixLength: bits)
    }
}
