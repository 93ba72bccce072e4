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
        guard listener >= 0 else {
            throw LoopbackPort.PortError(description: "socket() failed: \(String(cString: strerror(errno)))")
        }
        let port: Int
        do {
            port = try LoopbackPort.bindToAnyPort(listener)
        } catch {
            close(listener)
            throw error
        }
        guard listen(listener, 0) == 0 else {
            close(listener)
            throw LoopbackPort.PortError(description: "cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        var fillers: [Int32] = []
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = LoopbackPort.connect(filler, to: port)
            fillers.append(filler)
        }
        // Give the fillers' handshakes a moment to land in the backlog before anyone else connects.
        usleep(100_000)
        self.port = port
        descriptors = [listener] + fillers
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }
}
