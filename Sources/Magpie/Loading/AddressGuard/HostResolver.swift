import Foundation
import Glibc
import NIOCore

/// Every address a host name resolves to, with `getaddrinfo`. Blocking: run it on a thread pool.
enum HostResolver {
    static func addresses(of host: String, port: Int) throws(NetworkFailure) -> [SocketAddress] {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(bare, String(port), &hints, &list)
        guard status == 0, let list else {
            let reason = String(cString: gai_strerror(status))
            throw NetworkFailure(.hostNotFound, "host not found: \(bare) (\(reason))")
        }
        defer { freeaddrinfo(list) }
        var found: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch current.pointee.ai_family {
                case AF_INET:
                    let v4 = UnsafeRawPointer(address).load(as: sockaddr_in.self)
                    found.append(SocketAddress(v4, host: bare))
                case AF_INET6:
                    let v6 = UnsafeRawPointer(address).load(as: sockaddr_in6.self)
                    found.append(SocketAddress(v6, host: bare))
                default:
                    break
                }
            }
            entry = current.pointee.ai_next
        }
        guard !found.isEmpty else { throw NetworkFailure(.hostNotFound, "host not found: \(bare) (no IP addresses)") }
        return found
    }
}

extension IPAddressBytes {
    init?(_ address: SocketAddress) {
        guard let text = address.ipAddress else { return nil }
        self.init(text)
    }
}
