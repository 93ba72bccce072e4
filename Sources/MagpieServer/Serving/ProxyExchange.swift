import Synchronization

/// A request as the proxy needs it, whatever server received it.
public struct ProxyRequest: Sendable {
    /// The path as received, percent-encoding intact: `/<signature>/<options>/<source>`.
    public var path: String
    /// Header fields, names in lower case.
    public var headers: [String: String]
    /// An id for the access log and `X-Request-Id`; taken from the request's header if it
    /// has one.
    public var id: String
    /// `GET`, or `HEAD`, which is answered as a `GET` whose body the server leaves out.
    public var method = Method.get

    /// The methods the proxy answers.
    public enum Method: String, Sendable {
        case get = "GET", head = "HEAD"
    }

    public init(path: String, headers: [String: String] = [:], id: String? = nil) {
        self.init(
            path: path, lowercasedHeaders: Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last }),
            id: id)
    }

    /// A request whose header names are in lower case already (HTTP types' canonical names), as
    /// a server's adapter has them: nothing is copied to lower them again.
    package init(path: String, lowercasedHeaders headers: [String: String], id: String? = nil) {
        self.path = path
        self.headers = headers
        self.id = id ?? headers["x-request-id"] ?? ProxyRequest.makeID()
    }

    /// Sixteen hex digits, unique in this process: a counter scrambled by SplitMix64's
    /// finaliser (a bijection) from a random start, so ids do not read as a sequence. Drawing
    /// each from the system's generator was a `getrandom` call per request.
    private static func makeID() -> String {
        var mixed = idSeed &+ issuedIDs.wrappingAdd(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        mixed ^= mixed >> 31
        let digits = String(mixed, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static let idSeed = UInt64.random(in: .min ... .max)
    private static let issuedIDs = Atomic<UInt64>(0)
}

/// What the proxy answers.
public struct ProxyResponse: Sendable {
    /// The HTTP status: 200, 304, or an error status (<doc:ServingImages> lists them).
    public var status: Int
    /// Header fields in the order they are sent.
    public var headers: [(name: String, value: String)]
    /// The image, or a one-line reason for an error.
    public var body: [UInt8]

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
