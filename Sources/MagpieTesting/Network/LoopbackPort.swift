import Foundation

/// Ports on 127.0.0.1 for servers that cannot be told to pick their own (nginx, tinyproxy),
/// and for a port where nothing listens.
public enum LoopbackPort {
    /// A port the kernel just handed out and nobody holds: bound to port 0, read, closed.
    /// Another process could take it before the caller does; on a test machine that is rare
    /// enough that callers retry once rather than coordinate.
    public static func unused() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PortError(description: "socket() failed: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        return try bindToAnyPort(fd)
    }

    /// Starts a server on an unused port, choosing again (up to three times) when another
    /// process took the port between choosing and binding it.
    public static func retryingIfTaken<Server>(_ start: (Int) async throws -> Server) async throws -> (Int, Server) {
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try unused()
            do {
                return (port, try await start(port))
            } catch {
                lastError = error
            }
        }
        throw lastError ?? PortError(description: "no port could be used")
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func isListening(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connect(fd, to: port) == 0
    }

    /// A port could not be found or bound.
    public struct PortError: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
    }

    /// Binds `fd` to 127.0.0.1 on a port the kernel chooses, and returns that port.
    static func bindToAnyPort(_ fd: Int32) throws -> Int {
        var address = address(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else { throw PortError(description: "cannot bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `connect(2)` of `fd` to 127.0.0.1:`port`: 0 when connected, -1 otherwise (`EINPROGRESS`
    /// for a non-blocking socket still connecting).
    static func connect(_ fd: Int32, to port: Int) -> Int32 {
        var address = address(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
