public import Hummingbird

/// Serves an ``ImageProxy`` under a path of a Hummingbird application, beside the application's
/// own routes and with its own request context, as Hummingbird's `FileMiddleware` serves files.
///
/// `GET` and `HEAD` requests under ``urlBasePath`` are the proxy's: `/images/<signature>/…` is
/// answered as the proxy URL `/<signature>/…`, and `/images/health` and `/images/metrics` are
/// the proxy's health check and metrics; everything else goes on to the rest of the application.
/// The answers are those of ``ImageProxyResponder``: the same statuses, headers and metrics.
/// A request whose client goes away stops its work when `Context` is a ``ClientChannelContext``;
/// with any other context the work runs to its end.
///
/// ```swift
/// let router = Router(context: AppRequestContext.self)
/// router.get("/") { _, _ in "Pages and images from one server.\n" }
/// router.add(middleware: ImageProxyMiddleware(proxy: proxy, urlBasePath: "/images"))
/// ```
public struct ImageProxyMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The path the proxy is mounted at, without a trailing slash (`/images`).
    public let urlBasePath: String

    let endpoints: ProxyEndpoints

    /// Mounts `proxy` at `urlBasePath`, a path such as `/images` (a trailing slash is ignored;
    /// `/` mounts it at the root, answering every `GET` and `HEAD` the routes before it leave).
    public init(proxy: ImageProxy, urlBasePath: String) {
        var base = urlBasePath
        while base.hasSuffix("/") { base.removeLast() }
        if !base.isEmpty, !base.hasPrefix("/") { base = "/" + base }
        self.urlBasePath = base
        endpoints = ProxyEndpoints(proxy: proxy)
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .get || request.method == .head, let path = pathBelowBase(request.uri.description) else {
            return try await next(request, context)
        }
        return await endpoints.respond(to: request, path: path, channel: (context as? any ClientChannelContext)?.channel)
    }

    /// The part of `target` (path and query) below the base path, starting with `/`; `nil` for
    /// a target outside it (`/imagesque` is not under `/images`).
    private func pathBelowBase(_ target: String) -> Substring? {
        guard target.hasPrefix(urlBasePath) else { return nil }
        let rest = target.dropFirst(urlBasePath.count)
        guard rest.first == "/" else { return nil }
        return rest
    }
}
