import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import Magpie
import MagpieServer
import MagpieTesting
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing

/// An image proxy on loopback (port 0) fetching from a loopback origin, for one test: the
/// proxy's address policy allows loopback and nothing else, as `--allow-addresses loopback`.
struct ProxyFixture: Sendable {
    let origin: ImageServer
    let proxy: ImageProxy
    let port: Int
    let client: HTTPClient
    let log: LogRecorder
    let mount: ProxyMount

    struct Reply: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]

        func header(_ name: String) -> String? { headers.first(name: name) }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The signed path for the origin's `path` with `options`, under the proxy's mount point.
    func path(_ originPath: String, _ options: String) -> String {
        mount.base + proxy.path(for: origin.url(originPath), options: options)
    }

    /// The origin's `originPath` as a thumbor URL names its image: `127.0.0.1:PORT/a.jpg`.
    func thumborImage(_ originPath: String) -> String {
        let url = origin.url(originPath)
        return "\(url.host ?? "127.0.0.1"):\(url.port ?? 80)\(url.path)"
    }

    func get(_ path: String, headers: [String: String] = [:]) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Array(body.readableBytesView))
    }

    /// The value of the Prometheus sample `line` (name with labels) in `/metrics`, 0 when absent.
    func metric(_ line: String) async throws -> Double {
        let text = try await get(mount.base + "/metrics").text
        for row in text.split(separator: "\n") where row.hasPrefix(line + " ") {
            return Double(row.dropFirst(line.count + 1)) ?? 0
        }
        return 0
    }

    /// The value of the sample `line` once it reaches `value`, polling `/metrics` for up to 20 s
    /// (the value then, if it never does).
    func metric(_ line: String, reaching value: Double) async throws -> Double {
        for _ in 0..<2000 {
            let current = try await metric(line)
            if current >= value { return current }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await metric(line)
    }

    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
}

/// How a test's proxy is served.
enum ProxyMount: Sendable {
    /// By ``ProxyServer``, at the root.
    case alone
    /// By ``ImageProxyMiddleware`` at `base`, in a plain Hummingbird application with an
    /// application's own request context (which keeps the client's channel, or not).
    case middleware(base: String, keepsChannel: Bool)

    var base: String {
        switch self {
        case .alone: ""
        case .middleware(let base, _): base
        }
    }
}

func withProxyFixture<T: Sendable>(
    mount: ProxyMount = .alone,
    origin startedOrigin: ImageServer? = nil,
    configure: (inout ProxyConfiguration) throws -> Void = { _ in },
    _ body: (ProxyFixture) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-proxy-test-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let log = LogRecorder()
    var configuration = ProxyConfiguration(cacheDirectory: directory)
    configuration.pipeline.addressPolicy = AddressPolicy(allowing: .loopback)
    // A loaded machine can hold a loopback connect for seconds; timeout tests set their own.
    configuration.pipeline.connectTimeout = .seconds(60)
    // As in `withTestFixture`: the machine's memory pressure is not the test's.
    configuration.pipeline.memoryPressure = nil
    configuration.signingKeys = [try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)]
    configuration.logger = log.logger(label: "magpie.proxy")
    try configure(&configuration)
    let origin: ImageServer
    if let startedOrigin { origin = startedOrigin } else { origin = try await ImageServer.start() }
    let replica = try await ProxyReplica.start(configuration, mount: mount)
    let proxy = replica.proxy
    let port = replica.port
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: .init(redirectConfiguration: .disallow))
    let fixture = ProxyFixture(origin: origin, proxy: proxy, port: port, client: client, log: log, mount: mount)
    func tearDown() async {
        try? await client.shutdown()
        await replica.stop()
        await origin.shutdown()
    }
    do {
        let result = try await body(fixture)
        await tearDown()
        return result
    } catch {
        await tearDown()
        throw error
    }
}

/// One proxy server on 127.0.0.1 with a port the system chose, run in this process.
struct ProxyReplica: Sendable {
    let proxy: ImageProxy
    let port: Int
    private let group: ServiceGroup
    private let runner: Task<Void, any Error>

    static func start(_ configuration: ProxyConfiguration, mount: ProxyMount = .alone) async throws -> ProxyReplica {
        let proxy = try ImageProxy(configuration: configuration)
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        var quiet = Logger(label: "magpie.proxy-test")
        quiet.logLevel = .critical
        let onRunning: @Sendable (Int) async -> Void = { port in portSink.yield(port) }
        let service: any Service =
            switch mount {
            case .alone: ProxyServer(proxy: proxy, host: "127.0.0.1", port: 0).application(onRunning: onRunning)
            case .middleware(let base, keepsChannel: true):
                appApplication(AppRequestContext.self, proxy: proxy, base: base, logger: quiet, onRunning: onRunning)
            case .middleware(let base, keepsChannel: false):
                appApplication(BasicRequestContext.self, proxy: proxy, base: base, logger: quiet, onRunning: onRunning)
            }
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: quiet))
        let runner = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = await iterator.next() ?? 0
        return ProxyReplica(proxy: proxy, port: port, group: group, runner: runner)
    }

    /// An application of its own (not ``ProxyServer``'s, so no watch on its connections is
    /// installed beforehand) with a page at `/` and the proxy mounted at `base`.
    private static func appApplication<Context: RequestContext>(
        _ context: Context.Type, proxy: ImageProxy, base: String, logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void
    ) -> some Service where Context.Source == ApplicationRequestContextSource {
        let router = Router(context: Context.self)
        router.get("/") { _, _ in "the application's own page\n" }
        router.add(middleware: ImageProxyMiddleware(proxy: proxy, urlBasePath: base))
        return Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { await onRunning($0.localAddress?.port ?? 0) }, logger: logger)
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await runner.result
        await proxy.shutdown()
    }
}

/// A decoder that waits until opened before decoding, and counts its calls: holds work in a
/// processing slot for as long as a test needs. (It runs on the proxy's threads, so it blocks.)
final class GatedDecoder: ImageDecoding {
    private let opened = ConditionLock(value: false)
    private let calls = NIOLockedValueBox(0)

    var callCount: Int { calls.withLockedValue { $0 } }

    func open() {
        opened.lock()
        opened.unlock(withValue: true)
    }

    func decode(_ data: [UInt8], thumbnail: ImageRequest.Thumbnail?, maximumPixels: Int) throws(MagpieError) -> DecodedImage {
        try decode(data, options: DecodingOptions(thumbnail: thumbnail, maximumPixels: maximumPixels))
    }

    func decode(_ data: [UInt8], options: DecodingOptions) throws(MagpieError) -> DecodedImage {
        calls.withLockedValue { $0 += 1 }
        opened.lock(whenValue: true)
        opened.unlock()
        return try VipsDecoder().decode(data, options: options)
    }
}
