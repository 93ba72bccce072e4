import Foundation

/// A port on 127.0.0.1 whose connects get no answer, like a host behind a firewall that drops
/// packets: a socket listens with the smallest backlog and is never accepted from, and filler
/// connections fill that backlog, after which Linux drops every new SYN.
public final class UnansweredPort: Sendable {
    /// The port on 127.0.0.1.
    public let port: Int
    private let descriptors: [Int32]

    /// Listens and fills the backlog.
    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listener, generic, length) == 0 && getsockname(listener, generic, &length) == 0 && listen(listener, 0) == 0
            }
        }
        guard listener >= 0, listening else {
            close(listener)
            throw LoopbackPort.PortError(description: "cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        var fillers: [Int32] = []
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
            }
            fillers.append(filler)
        }
        // Give the fillers' handshakes a moment to land in the backlog before anyone else connects.
        usleep(100_000)
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptors = [listener] + fillers
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }
}
