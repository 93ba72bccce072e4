/// Why a proxy URL was not accepted: its status and one line saying what is wrong.
public struct ProxyURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 400 for a malformed URL, 403 for a bad signature or a source that is not allowed, 410 for
    /// an expired URL, 422 for an output format Magpie cannot write.
    public let status: Int
    public let message: String

    static func malformed(_ message: String) -> ProxyURLError { ProxyURLError(status: 400, message: message) }
    static func forbidden(_ message: String) -> ProxyURLError { ProxyURLError(status: 403, message: message) }

    public var description: String { message }
}
