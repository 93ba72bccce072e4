import Foundation
import CMagpieSystem
import Glibc

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
