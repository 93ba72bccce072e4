import AsyncHTTPClient
import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import NIOCore
import NIOHTTP1
import Testing

@Suite("magpie proxy")
struct ProxyCommandTests {
    @Test func sigtermAnswersTheRequestInFlightThenExits() async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let origin = try await ImageServer.start()
        let gate = Gate()
        origin.serve("/slow.jpg", .image(try TestImages.texture(width: 640, height: 480, format: .jpeg), gate: gate))
        let (process, output) = try tool.start([
            "proxy", "--port", "0", "--allow-unsigned", "--allow-addresses", "loopback", "--no-disk-cache",
        ])
        defer { if process.isRunning { process.terminate() } }
        let port = try await MagpieTool.listeningPort(in: output)
        let base = "http://127.0.0.1:\(port)"
        let source = origin.url("/slow.jpg").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let inFlight = Task {
            let response = try await client.execute(HTTPClientRequest(url: "\(base)/unsafe/s:64/f:png/plain/\(source)"), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), Array(body.readableBytesView))
        }
        // The proxy is downloading the source, held at the origin.
        try await waitUntil(timeout: .seconds(30)) { origin.statistics(for: "/slow.jpg").requests == 1 }

        process.terminate()
        // Draining: it stops taking connections but keeps running for the request in flight.
        try await waitUntil(timeout: .seconds(30)) { !Self.accepts(port: port) }
        #expect(process.isRunning)
        gate.open()

        let (status, body) = try await inFlight.value
        try? await client.shutdown()
        #expect(status == 200)
        let image = try VipsDecoder().decode(body, options: DecodingOptions())
        #expect((image.width, image.height) == (64, 48))
        #expect(await MagpieTool.waitForExit(process) == 0)
        #expect(String(decoding: try Data(contentsOf: output), as: UTF8.self).contains("Stopped."))
        await origin.shutdown()
    }

    /// An imgproxy deployment's settings, from an env file and the environment (which wins),
    /// run `magpie proxy` unchanged: its key and salt sign, its presets and TTL apply.
    @Test func imgproxysEnvironmentConfiguresTheProxy() async throws {
        let settings = """
            IMGPROXY_KEY=943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881
            IMGPROXY_SALT=520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5
            IMGPROXY_PRESETS=thumb=rs:fill:50:40/f:png
            IMGPROXY_TTL=60
            """
        try await Self.withProxy(
            settings: settings, arguments: ["--port", "0", "--allow-addresses", "loopback"], environment: ["IMGPROXY_TTL": "600"]
        ) { port, origin in
            let key = try SigningKey(
                keyHex: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
                saltHex: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")
            let source = origin.url("/a.jpg").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let path = URLSigner(keys: [key]).sign("/pr:thumb/plain/" + source)
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 20)
            let unsigned = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/unsafe/pr:thumb/plain/\(source)"), timeout: .seconds(60))
            try? await client.shutdown()
            #expect(response.status == .ok && unsigned.status == .forbidden)
            #expect(response.headers.first(name: "Cache-Control")?.hasPrefix("public, max-age=600") == true, "the environment wins over the file")
            let image = try VipsDecoder().decode(Array(body.readableBytesView), options: DecodingOptions())
            #expect((image.width, image.height) == (50, 40) && image.sourceFormat == .png)
        }
    }

    /// `magpie proxy` with an env file of `settings` (`--config`) and `arguments`, and an origin
    /// serving `/a.jpg`; `body` gets the port it listens on.
    static func withProxy(
        settings: String, arguments: [String] = [], environment: [String: String] = [:], _ body: (Int, ImageServer) async throws -> Void
    ) async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let origin = try await ImageServer.start()
        origin.serve("/a.jpg", .image(try TestImages.texture(width: 640, height: 480, format: .jpeg)))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-proxy-\(UUID().uuidString).env")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(settings.utf8).write(to: file)
        let (process, output) = try tool.start(["proxy", "--no-disk-cache", "--config", file.path] + arguments, environment: environment)
        defer { if process.isRunning { process.terminate() } }
        do {
            try await body(try await MagpieTool.listeningPort(in: output), origin)
        } catch {
            await origin.shutdown()
            throw error
        }
        await origin.shutdown()
    }

    /// Each processing slot decodes on a thread of its own (issue 38), at most four per core:
    /// the first line says how many decodes run at once, and that follows `--slots` and
    /// imgproxy's `IMGPROXY_WORKERS`.
    @Test(arguments: [(["--slots", "3"], [:], 3), ([], ["IMGPROXY_WORKERS": "5"], 5), (["--slots", "100000"], [:], 100_000)])
    func eachSlotHasADecodingThread(arguments: [String], environment: [String: String], slots: Int) async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let (process, output) = try tool.start(["proxy", "--no-disk-cache", "--port", "0", "--allow-unsigned"] + arguments, environment: environment)
        defer { if process.isRunning { process.terminate() } }
        _ = try await MagpieTool.listeningPort(in: output)
        let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        #expect(text.contains("\(slots) processing slots and \(min(slots, 4 * Processors.available)) decoding threads for "), "\(text)")
    }

    /// `magpie health`, the container image's health check (no shell there for curl), asks the
    /// proxy at its own bind settings and says what it found.
    @Test func healthAsksTheProxyAtItsBind() async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let (process, output) = try tool.start(["proxy", "--no-disk-cache", "--port", "0", "--allow-unsigned", "--host", "0.0.0.0"])
        defer { if process.isRunning { process.terminate() } }
        let port = try await MagpieTool.listeningPort(in: output, host: "0.0.0.0")
        let healthy = try await tool.run(["health"], environment: ["IMGPROXY_BIND": ":\(port)"])
        #expect(healthy.status == 0, "\(healthy.standardError)")
        #expect(healthy.standardOutput.contains("healthy: http://127.0.0.1:\(port)/health answered 200"))
        let refusing = try RefusingPort()
        let unhealthy = try await tool.run(["health", "--port", "\(refusing.port)", "--timeout", "1"], environment: ["IMGPROXY_BIND": ":\(port)"])
        #expect(unhealthy.status == 1)
        #expect(unhealthy.standardError.contains("unhealthy: http://127.0.0.1:\(refusing.port)/health did not answer"), "\(unhealthy.standardError)")
        withExtendedLifetime(refusing) {}
    }

    @Test func anUnusableSettingStopsTheProxyWithItsName() async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let result = try await tool.run(["proxy", "--port", "0", "--allow-unsigned"], environment: ["IMGPROXY_SIGNATURE_SIZE": "40"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("IMGPROXY_SIGNATURE_SIZE is bytes of the HMAC, 1 to 32"), "\(result.standardError)")
    }

    /// What a service's environment file says is enough: where to listen, and that unsigned
    /// URLs are meant (never assumed from a missing key).
    @Test func aServicesEnvironmentFileIsEnough() async throws {
        let settings = """
            IMGPROXY_BIND=127.0.0.1:0
            MAGPIE_ALLOW_UNSIGNED=true
            IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES=true
            """
        try await Self.withProxy(settings: settings) { port, origin in
            let source = origin.url("/a.jpg").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/unsafe/rs:fill:50:40/plain/\(source)"), timeout: .seconds(60))
            try? await client.shutdown()
            #expect(response.status == .ok)
        }
    }

    @Test(arguments: [
        (["IMGPROXY_BIND": "8080"], "IMGPROXY_BIND is HOST:PORT, [IPv6]:PORT or :PORT"),
        (["MAGPIE_BIND": "::1:8080"], "MAGPIE_BIND is HOST:PORT"),
        (["IMGPROXY_BIND": "127.0.0.1:70000"], "with a port from 0 to 65535"),
        (["MAGPIE_ALLOW_UNSIGNED": "maybe"], "MAGPIE_ALLOW_UNSIGNED"),
        (["MAGPIE_ALLOW_UNSIGNED": "false"], "give a signing key and salt, or allow unsigned URLs explicitly"),
    ])
    func unusableServiceSettingsAreNamed(environment: [String: String], message: String) async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let result = try await tool.run(["proxy", "--no-disk-cache"], environment: environment, limit: .seconds(60))
        #expect(result.status != 0, "\(environment)")
        #expect(result.standardError.contains(message), "\(environment): \(result.standardError)")
    }

    /// Each request and download runs under a timeout; finished work must not leave its timer
    /// (and memory) behind until the deadline. A cancelled `Task.sleep` did: about 700 bytes
    /// per request for the whole timeout, which a 600 s timeout makes plain.
    @Test func finishedRequestsLeaveNoTimersBehind() async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let (process, output) = try tool.start([
            "proxy", "--port", "0", "--allow-unsigned", "--no-disk-cache", "--timeout", "600", "--log-level", "warning",
        ])
        defer { if process.isRunning { process.terminate() } }
        let port = try await MagpieTool.listeningPort(in: output)
        // A loopback source: refused by the address policy after the whole path (timeouts,
        // pipeline, connection gate) has run, with imgproxy's 404.
        let url = "http://127.0.0.1:\(port)/unsafe/s:64/plain/http%3A%2F%2F127.0.0.1%3A9%2Fx.jpg"
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        // A fixed number of requests, however long the machine takes to send them: the growth
        // is measured per request, so a slow or busy machine sends as many as a fast one.
        func send(_ count: Int, connections: Int = 8) async throws -> Int {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<connections {
                    group.addTask {
                        var refused = 0
                        for _ in 0..<(count / connections) {
                            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
                            _ = try await response.body.collect(upTo: 1 << 16)
                            if response.status == .notFound { refused += 1 }
                        }
                        return refused
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        _ = try await send(2_000)  // allocator and caches settle
        let before = ProcessMemory.resident(ofProcess: process.processIdentifier)
        let requests = 8_000
        let refused = try await send(requests)
        let growth = ProcessMemory.resident(ofProcess: process.processIdentifier) - before
        try? await client.shutdown()
        #expect(refused == requests, "every request should run the whole path to the refusal")
        try #require(before > 0)
        // 2 MB of slack for the allocator, and 200 bytes a request: a quarter of what the old
        // timers held (about 700 bytes each, 5.6 MB for these requests).
        #expect(growth < (2 << 20) + requests * 200, "RSS grew \(growth >> 10) KB over \(requests) requests (\(growth / requests) bytes each)")
    }

    @Test(arguments: [
        (["proxy"], "give a signing key and salt, or allow unsigned URLs explicitly"),
        (["proxy", "--signing-key", "abcd"], "give one salt per signing key"),
        (["proxy", "--signing-key", "zz", "--signing-salt", "00"], "hex"),
        (["proxy", "--allow-unsigned", "--allow-addresses", "intranet"], "'intranet' is not loopback, private, link-local or cgnat"),
        (["proxy", "--allow-unsigned", "--preset", "thumb"], "--preset 'thumb' is not NAME=OPTIONS"),
        (["proxy", "--allow-unsigned", "--preset", "thumb=q:500"], "preset 'thumb'"),
        (["proxy", "--allow-unsigned", "--port", "70000"], "--port must be between 0 and 65535"),
        (["proxy", "--allow-unsigned", "--log-level", "loud"], "--log-level must be one of"),
        // 1e300 s overflowed the nanoseconds and stopped the process with a trap (exit 132).
        (["proxy", "--allow-unsigned", "--timeout", "1e300"], "--timeout is at most 3600 seconds"),
        (["proxy", "--allow-unsigned", "--queue=-1"], "--queue cannot be negative"),
    ])
    func badSettingsAreUsageErrors(arguments: [String], message: String) async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let result = try await tool.run(arguments + ["--no-disk-cache"], limit: .seconds(60))
        #expect(result.status == 2, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
