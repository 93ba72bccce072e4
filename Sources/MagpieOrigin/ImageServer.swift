public import Foundation
import Hummingbird
public import Logging
import NIOCore
import NIOConcurrencyHelpers
import ServiceLifecycle

/// An HTTP/1.1 server on 127.0.0.1 (or another loopback address) with an OS-chosen port, for
/// tests, benchmarks and the demo.
///
/// ```swift
/// let server = try await ImageServer.start()
/// server.serve("/cat.jpg", .image(jpegBytes))
/// let image = try await pipeline.image(for: server.url("/cat.jpg"))
/// #expect(server.statistics(for: "/cat.jpg").requests == 1)
/// await server.shutdown()
/// ```
public final class ImageServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The address it listens on, as written in its URLs (`127.0.0.1`, `[::1]`).
    public let host: String
    let routes: RouteTable
    private let services: ServiceGroup
    private let runner: Task<Void, any Error>

    private init(host: String, port: Int, routes: RouteTable, services: ServiceGroup, runner: Task<Void, any Error>) {
        self.host = host
        self.port = port
        self.routes = routes
        self.services = services
        self.runner = runner
    }

    /// Starts a server on `address` (IPv4 or IPv6), on `port` or, with 0, one the system chooses.
    public static func start(
        address: String = "127.0.0.1", port: Int = 0, logger: Logger = Logger(label: "magpie.test-server")
    ) async throws -> ImageServer {
        let routes = RouteTable()
        var quiet = logger
        quiet.logLevel = .critical
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            responder: RouteResponder(routes: routes),
            server: .http1(configuration: .init(additionalChannelHandlers: [ClientAbortHandler()])),
            configuration: .init(address: .hostname(address, port: port), serverName: nil),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: quiet)
        var configuration = ServiceGroupConfiguration(services: [application], gracefulShutdownSignals: [], logger: quiet)
        // A response held back by a gate that a test never opened must not stall shutdown.
        configuration.maximumGracefulShutdownDuration = .seconds(3)
        let services = ServiceGroup(configuration: configuration)
        let runner = Task { try await services.run() }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            runner.cancel()
            throw ServerError.couldNotStart
        }
        let host = address.contains(":") ? "[\(address)]" : address
        return ImageServer(host: host, port: port, routes: routes, services: services, runner: runner)
    }

    enum ServerError: Error {
        case couldNotStart
    }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> URL {
        URL(string: "http://\(host):\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// Serves `route` on `path`, replacing what was there.
    public func serve(_ path: String, _ route: ServedRoute) {
        routes.set(route, for: path)
    }

    /// Serves every regular file in `directory` and its subfolders under `prefix`, by relative
    /// path, each route adjusted by `adjust` (for latency or bandwidth). Returns the paths served.
    @discardableResult
    public func serveDirectory(
        _ directory: URL, under prefix: String = "/", adjust: (inout ServedRoute) -> Void = { _ in }
    ) throws -> [String] {
        let root = directory.standardizedFileURL
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: directory.path])
        }
        var paths: [String] = []
        let base = prefix.hasSuffix("/") ? prefix : prefix + "/"
        for case let file as URL in walker {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                let data = FileManager.default.contents(atPath: file.path)
            else { continue }
            let relative = file.standardizedFileURL.path.dropFirst(root.path.count).drop { $0 == "/" }
            var route = ServedRoute.image(Array(data))
            adjust(&route)
            let path = base + relative
            serve(path, route)
            paths.append(path)
        }
        return paths.sorted()
    }

    /// Changes the route on `path` in place, for example to add latency.
    public func update(_ path: String, _ change: @Sendable (inout ServedRoute) -> Void) {
        routes.update(path, change)
    }

    /// What the server saw on `path`.
    public func statistics(for path: String) -> RouteStatistics {
        routes.statistics(for: path)
    }

    /// Paths of all requests received, in order of arrival.
    public var requestLog: [String] { routes.arrivals }

    /// Requests received on all paths.
    public var totalRequests: Int { routes.totalRequests }

    /// Stops the server gracefully: it stops accepting, finishes the responses under way and
    /// closes its connections. (Cancelling the serving task instead can leave a just-accepted
    /// connection unserved, which NIO reports by stopping the process.)
    public func shutdown() async {
        await services.triggerGracefulShutdown()
        _ = try? await runner.value
    }
}

/// Routes and their statistics, shared between the server's handlers and the test.
final class RouteTable: Sendable {
    private struct State {
        var routes: [String: ServedRoute] = [:]
        var statistics: [String: RouteStatistics] = [:]
        var arrivals: [String] = []
    }

    private let state = NIOLockedValueBox(State())

    func set(_ route: ServedRoute, for path: String) {
        state.withLockedValue { $0.routes[path] = route }
    }

    func update(_ path: String, _ change: (inout ServedRoute) -> Void) {
        state.withLockedValue { state in
            if var route = state.routes[path] {
                change(&route)
                state.routes[path] = route
            }
        }
    }

    func route(for path: String) -> ServedRoute? {
        state.withLockedValue { $0.routes[path] }
    }

    func arrived(_ path: String) {
        state.withLockedValue { $0.arrivals.append(path) }
    }

    var arrivals: [String] { state.withLockedValue { $0.arrivals } }

    func record(_ path: String, _ change: (inout RouteStatistics) -> Void) {
        state.withLockedValue { state in
            change(&state.statistics[path, default: RouteStatistics()])
        }
    }

    func statistics(for path: String) -> RouteStatistics {
        state.withLockedValue { $0.statistics[path] ?? RouteStatistics() }
    }

    var totalRequests: Int {
        state.withLockedValue { $0.statistics.values.reduce(0) { $0 + $1.requests } }
    }
}
