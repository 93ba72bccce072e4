public import MagpieOrigin
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

extension ServedRoute {
    /// Faults injected into a response.
    public enum Fault: Sendable, Hashable {
        /// Declare the full `Content-Length`, send only this many bytes, then close.
        case truncate(afterBytes: Int)
        /// Send this many bytes, then reset the connection (TCP RST).
        case reset(afterBytes: Int)
        /// Declare this `Content-Length` instead of the true one (a lying server).
        case declareLength(Int)
    }

    /// A fault injected while sending the body.
    public var fault: Fault? {
        get { testInterference.fault }
        set { testInterference.fault = newValue }
    }

    /// When set, the response head waits until the gate is opened.
    public var gate: Gate? {
        get { testInterference.gate }
        set { testInterference.gate = newValue }
    }

    /// When set, a ``Fault`` cutting the body waits for this gate after sending its bytes: a
    /// test sees them arrive, then opens it, so the client has whatever was sent.
    public var faultGate: Gate? {
        get { testInterference.faultGate }
        set { testInterference.faultGate = newValue }
    }

    /// A route serving `body` with `fault`.
    public init(body: [UInt8], contentType: String? = "application/octet-stream", fault: Fault) {
        self.init(body: body, contentType: contentType)
        self.fault = fault
    }

    /// An image with the content type its bytes announce, held back by `gate`.
    public static func image(_ bytes: [UInt8], contentType: String? = nil, gate: Gate?) -> ServedRoute {
        var route = ServedRoute.image(bytes, contentType: contentType)
        route.gate = gate
        return route
    }

    private var testInterference: TestInterference {
        get { interference as? TestInterference ?? TestInterference() }
        set { interference = newValue }
    }
}

/// The faults and gates of one route, as the server's ``ResponseInterference``.
struct TestInterference: ResponseInterference {
    var fault: ServedRoute.Fault?
    var gate: Gate?
    var faultGate: Gate?

    func beforeHead() async {
        await gate?.wait()
    }

    var declaredLength: Int? {
        if case .declareLength(let length)? = fault { length } else { nil }
    }

    var bodyLimit: Int? {
        switch fault {
        case .truncate(let count)?, .reset(let count)?: count
        default: nil
        }
    }

    func afterBody(on channel: any Channel) async -> Bool {
        switch fault {
        case .truncate?:
            await faultGate?.wait()
            try? await channel.close()
            return true
        case .reset?:
            await faultGate?.wait()
            // SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            if let socket = channel as? any SocketOptionProvider {
                try? await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            }
            try? await channel.close()
            return true
        default:
            return false
        }
    }
}
