public import Hummingbird
public import NIOCore

/// A request context that keeps its client's connection, so the proxy can stop the work of a
/// request whose client has gone (closed the connection, or its sending side) instead of
/// finishing an image nobody will read.
///
/// ``ProxyRequestContext`` is one. An application's own context becomes one by keeping the
/// channel its source gives it:
///
/// ```swift
/// struct AppRequestContext: ClientChannelContext {
///     var coreContext: CoreRequestContextStorage
///     let channel: any Channel
///     var user: String?
///
///     init(source: ApplicationRequestContextSource) {
///         coreContext = .init(source: source)
///         channel = source.channel
///     }
/// }
/// ```
public protocol ClientChannelContext: RequestContext {
    /// The connection the request came on.
    var channel: any Channel { get }
}
