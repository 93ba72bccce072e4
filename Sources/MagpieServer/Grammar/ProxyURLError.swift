/// Why a proxy URL was not accepted: its status and one line saying what is wrong.
public struct ProxyURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, for the grammar to answer with its server's status
    /// (``ProxyGrammar/status(for:)-(ProxyURLError)``).
    enum Kind: Sendable, Hashable {
        /// The path or an option does not read.
        case malformed
        /// A missing or wrong signature, or unsigned where that is not allowed.
        case signature
        /// The source (or a watermark's) is not allowed here.
        case source
        /// The URL's `expires` has passed.
        case expired
        /// Anything else, answered with ``status`` by every grammar.
        case other
    }

    /// Magpie's own status: 400 for a malformed URL, 403 for a bad signature or a source that is
    /// not allowed, 410 for an expired URL, 422 for an output format Magpie cannot write. Each
    /// grammar answers with its server's (imgproxy's are 404 for a URL that does not read).
    public let status: Int
    public let message: String
    let kind: Kind

    init(status: Int, message: String, kind: Kind = .other) {
        self.status = status
        self.message = message
        self.kind = kind
    }

    static func malformed(_ message: String) -> ProxyURLError { ProxyURLError(status: 400, message: message, kind: .malformed) }
    static func badSignature(_ message: String) -> ProxyURLError { ProxyURLError(status: 403, message: message, kind: .signature) }
    static func sourceNotAllowed(_ message: String) -> ProxyURLError { ProxyURLError(status: 403, message: message, kind: .source) }
    static func expired(_ message: String) -> ProxyURLError { ProxyURLError(status: 410, message: message, kind: .expired) }

    public var description: String { message }

    /// Errors are the same when a client sees the same: their status and message.
    public static func == (left: ProxyURLError, right: ProxyURLError) -> Bool {
        left.status == right.status && left.message == right.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(message)
    }
}
