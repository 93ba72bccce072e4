import Foundation

/// A port on 127.0.0.1 that refuses connections and stays refused: a socket is bound to it and
/// never listens, so a connect gets a reset at once, and no server started meanwhile (by a test
/// running beside this one) can take the port, as it could a port that was only found free.
/// Keep the value alive while the port is used (`withExtendedLifetime`, or a `defer` that
/// reads it).
public final class RefusingPort: Sendable {
    /// The port on 127.0.0.1.
    public let port: Int
    private let descriptor: Int32

    /// Binds a port the kernel chooses.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else {
            throw LoopbackPort.PortError(description: "socket() failed: \(String(cString: strerror(errno)))")
        }
        do {
            port = try LoopbackPort.bindToAnyPort(descriptor)
        } catch {
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}
