public import Hummingbird
import Logging
import NIOCore
public import ServiceLifecycle
import UnixSignals

/// Runs an ``ImageProxy`` over HTTP/1.1 with Hummingbird until SIGTERM or SIGINT, then stops
/// accepting connections, finishes the requests in flight and returns.
public struct ProxyServer: Sendable {
    public let proxy: ImageProxy
    public let host: String
    public let port: Int

    public init(proxy: ImageProxy, host: String = "127.0.0.1", port: Int = 8080) {
        self.proxy = proxy
        self.host = host
        self.port = port
    }

    /// The Hummingbird application, for running inside a larger service group.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        application(responder: ImageProxyResponder(proxy: proxy), onRunning: onRunning)
    }

    /// The Hummingbird application answering with `responder`: the responder of a router with
    /// its own request context that mounts an ``ImageProxyMiddleware`` beside its routes, for
    /// example. Connections are watched for clients that go away, as the proxy alone does.
    public func application<Responder: HTTPResponder>(
        responder: Responder, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        var quiet = proxy.configuration.logger
        quiet.logLevel = max(quiet.logLevel, .notice)
        return Application(
            responder: responder,
            server: .http1(configuration: .init(additionalChannelHandlers: [DisconnectWatch()], idleTimeout: .seconds(75))),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: quiet)
    }

    /// Serves until SIGTERM or SIGINT, draining requests in flight (for at most
    /// `drainTimeout`), then shuts the proxy down. `onRunning` gets the port listened on.
    /// `services` run beside the server (a telemetry exporter, say) and are stopped after it,
    /// so that they see its last requests.
    public func run(
        drainTimeout: Duration = .seconds(30), alongside services: [any Service] = [], onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        try await run(responder: ImageProxyResponder(proxy: proxy), drainTimeout: drainTimeout, alongside: services, onRunning: onRunning)
    }

    /// ``run(drainTimeout:onRunning:)`` answering with `responder` (an application's router,
    /// say) instead of the proxy alone.
    public func run<Responder: HTTPResponder>(
        responder: Responder, drainTimeout: Duration = .seconds(30), alongside services: [any Service] = [],
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        // A group stops its services last to first.
        var configuration = ServiceGroupConfiguration(
            services: services + [application(responder: responder, onRunning: onRunning)], gracefulShutdownSignals: [.sigterm, .sigint],
            logger: proxy.configuration.logger)
        configuration.maximumGracefulShutdownDuration = drainTimeout
        let group = ServiceGroup(configuration: configuration)
        do {
            try await group.run()
        } catch {
            await proxy.shutdown()
            throw error
        }
        await proxy.shutdown()
    }
}
