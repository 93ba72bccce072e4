import AsyncHTTPClient
import Foundation
import NIOCore

/// The HTTP clients a pipeline sends through: one direct, and one per configured proxy, since
/// AsyncHTTPClient sets its proxy per client and `NO_PROXY` decides per URL.
struct OutboundClients: Sendable {
    private let direct: HTTPClient
    /// For endpoints the configuration names (an object store), which the address policy is
    /// about requests' URLs, not about: the direct client where there is no policy.
    private let trusted: HTTPClient?
    private let proxied: [ProxySettings.Server: HTTPClient]
    private let proxy: ProxySettings?
    /// Direct connections go through it when the configuration has an address policy.
    let gate: AddressGate?
    /// What the clients trust, for naming a missing trust store when an HTTPS load fails.
    let tls: TLSSettings

    init(configuration: ImagePipeline.Configuration) {
        tls = configuration.tls
        var base = HTTPClient.Configuration(
            tlsConfiguration: configuration.tls.nioConfiguration,
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(configuration.connectTimeout), read: TimeAmount(configuration.idleTimeout)),
            decompression: .disabled)
        base.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, configuration.maximumConcurrentDownloads)
        // Retrying a refused or unresolvable connection until the connect timeout only delays
        // the error: it holds a download slot for seconds and fails the same way. A load that
        // fails is tried again by the next request for the URL.
        base.connectionPool.retryConnectionEstablishment = false
        // The fetch stage's span is the request's; AsyncHTTPClient's own span would start on
        // the event loop, outside the request's context, as the root of a trace of its own.
        base.tracing.tracer = nil
        var direct = base
        trusted = configuration.addressPolicy == nil ? nil : HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: base)
        gate = configuration.addressPolicy.flatMap { policy in
            // Binding 127.0.0.1:0 only fails when the machine has no loopback at all; then the
            // client below has no gate to go through and every connection fails, never unchecked.
            try? AddressGate(policy: policy, connectTimeout: configuration.connectTimeout, group: HTTPClient.defaultEventLoopGroup)
        }
        if configuration.addressPolicy != nil {
            direct.proxy = .socksServer(host: "127.0.0.1", port: gate?.port ?? 0)
        }
        self.direct = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: direct)
        proxy = configuration.proxy
        var proxied: [ProxySettings.Server: HTTPClient] = [:]
        for server in [configuration.proxy?.http, configuration.proxy?.https].compactMap({ $0 }) where proxied[server] == nil {
            var through = base
            through.proxy = .server(
                host: server.host, port: server.port,
                authorization: server.credentials.map { .basic(username: $0.username, password: $0.password) })
            proxied[server] = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: through)
        }
        self.proxied = proxied
    }

    /// The client for `url` and the proxy it goes through, if any; `trusted` for an endpoint
    /// the configuration names.
    func client(for url: URL, trusted isTrusted: Bool = false) -> (client: HTTPClient, proxy: ProxySettings.Server?) {
        guard let server = proxy?.server(for: url), let client = proxied[server] else {
            return (isTrusted ? trusted ?? direct : direct, nil)
        }
        return (client, server)
    }

    func shutdown() async {
        try? await direct.shutdown()
        try? await trusted?.shutdown()
        await gate?.shutdown()
        for client in proxied.values { try? await client.shutdown() }
    }
}
