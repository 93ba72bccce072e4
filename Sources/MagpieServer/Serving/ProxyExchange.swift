/// A request as the proxy needs it, whatever server received it.
public struct ProxyRequest: Sendable {
    /// The path as received, percent-encoding intact: `/<signature>/<options>/<source>`.
    public var path: String
    /// Header fields, names in lower case.
    public var headers: [String: String]
    /// An id for the access log and `X-Request-Id`; taken from the request's header if it
    /// has one.
    public var id: String

    public init(path: String, headers: [String: String] = [:], id: String? = nil) {
        self.path = path
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.id = id ?? self.headers["x-request-id"] ?? ProxyRequest.makeID()
    }

    private static func makeID() -> String {
        let digits = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
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
