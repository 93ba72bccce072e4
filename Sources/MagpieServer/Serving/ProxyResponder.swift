public import Hummingbird
public import NIOCore

/// The request context of ``ImageProxyResponder``: it keeps the connection's channel to
/// notice a client that goes away.
public struct ProxyRequestContext: ClientChannelContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Serves an ``ImageProxy`` with Hummingbird: `/health`, `/metrics` and every other `GET`
/// or `HEAD` path as a proxy URL. To serve the proxy under a path of an application with its
/// own request context, use ``ImageProxyMiddleware`` instead.
public struct ImageProxyResponder: HTTPResponder {
    public typealias Context = ProxyRequestContext

    let endpoints: ProxyEndpoints

    public init(proxy: ImageProxy) {
        endpoints = ProxyEndpoints(proxy: proxy)
    }

    public func respond(to request: Request, context: ProxyRequestContext) async throws -> Response {
        await endpoints.respond(to: request, path: Substring(request.uri.description), channel: context.channel)
    }
}
