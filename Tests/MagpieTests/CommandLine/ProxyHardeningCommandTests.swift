import AsyncHTTPClient
import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import NIOCore
import NIOHTTP1
import Testing

/// Issue 32's probes against `magpie proxy` as operators run it (a child process, default
/// settings but loopback sources and no disk cache), its memory read from `/proc`.
@Suite("magpie proxy under attack")
struct ProxyHardeningCommandTests {
    /// The URLs the issue's attacker sent, one after another: each answered with its status
    /// at once, the proxy's peak memory barely moving (the unbounded versions took 1.1 to 2.2
    /// GB), and nothing fetched for a URL refused before admission.
    @Test func attackersURLsAreAnsweredWithinBoundedMemory() async throws {
        try await withProxyChild { proxy, origin in
            let photo = try TestImages.texture(width: 320, height: 240, format: .jpeg)
            origin.serve("/a.jpg", .image(photo))
            origin.serve("/mark.png", .image(try TestImages.texture(width: 64, height: 64, format: .png)))
            origin.serve("/page.html", .image(Array("<html><script>alert(1)</script></html>".utf8), contentType: "text/html"))
            let mark = "wmu:" + Base64URL.encode(Array(origin.url("/mark.png").absoluteString.utf8))
            func text(_ markup: String) -> String { "wm:1:ce/wmt:" + Base64URL.encode(Array(markup.utf8)) }
            _ = try await proxy.get("/a.jpg", "s:64", from: origin)  // libvips and the allocator settle
            let baseline = proxy.peak
            let probes: [(options: String, path: String, status: Int)] = [
                (text(#"<span font="16000">W</span>"#), "/a.jpg", 404),
                (text(#"<span font="20000">W</span>"#), "/a.jpg", 404),
                (text(String(repeating: "<b>", count: 300) + "W" + String(repeating: "</b>", count: 300)), "/a.jpg", 404),
                (text(#"<span foo="bar">W</span>"#), "/a.jpg", 404),
                (text(#"<span size="999999999999">W</span>"#), "/a.jpg", 404),
                (text("&#0;"), "/a.jpg", 404),
                // The largest text a mark may be: two 1,000 px letters, drawn in well under a second.
                (text(#"<span font="1000">WW</span>"#), "/a.jpg", 200),
                ("wm:1:re:12000:12000/" + mark, "/a.jpg", 200),
                ("pd:4096", "/a.jpg", 422),
                ("w:8192/h:4882/el:1/ex:1/pd:1500", "/a.jpg", 422),
                ("raw:1", "/page.html", 422),
            ]
            for probe in probes {
                let started = ContinuousClock.now
                let reply = try await proxy.get(probe.path, probe.options, from: origin)
                let growth = proxy.peak - baseline
                print("attack \(probe.options.prefix(60)): \(reply.status) in \(ContinuousClock.now - started), peak +\(growth >> 20) MB")
                #expect(reply.status == probe.status, "\(probe.options): \(reply.text)")
                #expect(ContinuousClock.now - started < .seconds(5), "\(probe.options)")
                #expect(reply.header("X-Content-Type-Options") == "nosniff")
                #expect(growth < 150 << 20, "\(probe.options): peak grew \(growth >> 20) MB")
            }
            #expect(origin.statistics(for: "/mark.png").requests == 1, "only the tiled request fetched its mark")
        }
    }

    /// Issue 32's load: 64 requests at once, each with a mark of its own that is a 49 MP
    /// progressive JPEG (294 MB of coefficients to decode) or a `/info` with a blurhash of one,
    /// against the default configuration (4 slots, a queue of 64, a 256 MB decode budget). Every
    /// request is answered 200, 503 or 504; the peak stays under the budget plus 400 MB;
    /// `/health`, asked every 25 ms throughout, answers within 100 ms at the 99th percentile.
    @Test func largeMarksAndInfoQueueWithinTheBudget() async throws {
        let bomb = try ProgressiveBomb.make()
        try await withProxyChild { proxy, origin in
            origin.serve("/a.jpg", .image(try TestImages.texture(width: 640, height: 480, format: .jpeg)))
            for index in 0..<64 { origin.serve("/bomb-\(index).jpg", .image(bomb)) }
            _ = try await proxy.get("/a.jpg", "s:64", from: origin)
            // The load balancer's probe, on a connection of its own.
            let prober = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            let probe = ProxyChild(port: proxy.port, pid: proxy.pid, client: prober)
            let health = Task { () -> [Duration] in
                var latencies: [Duration] = []
                while !Task.isCancelled {
                    let started = ContinuousClock.now
                    guard let reply = try? await probe.get(path: "/health"), reply.status == 200 else { break }
                    latencies.append(ContinuousClock.now - started)
                    try? await Task.sleep(for: .milliseconds(25))
                }
                return latencies
            }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let source = origin.url("/bomb-\(index).jpg").absoluteString
                        if index % 2 == 0 {
                            let mark = "wmu:" + Base64URL.encode(Array(source.utf8))
                            return try await proxy.get("/a.jpg", "s:300/wm:0.5:ce/" + mark, from: origin).status
                        }
                        let encoded = source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                        return try await proxy.get(path: "/info/unsafe/bh:4:3/plain/" + encoded).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            health.cancel()
            let latencies = await health.value.sorted()
            try? await prober.shutdown()
            let peak = proxy.peak
            let counts = Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count)
            let p99 = latencies.isEmpty ? Duration.seconds(999) : latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
            print("64 large marks and infos: statuses \(counts), peak \(peak >> 20) MB, /health p99 \(p99) over \(latencies.count) probes")
            #expect(statuses.allSatisfy { [200, 503, 504].contains($0) }, "\(counts)")
            #expect(counts[200, default: 0] > 0)
            #expect(peak < 256_000_000 + (400 << 20), "peak \(peak >> 20) MB")
            #expect(latencies.count > 20)
            #expect(p99 < .milliseconds(100), "/health p99 \(p99)")
        }
    }
}

/// A `magpie proxy` child on loopback taking unsigned URLs from a loopback origin.
struct ProxyChild: Sendable {
    let port: Int
    let pid: Int32
    let client: HTTPClient

    /// Peak resident memory of the proxy so far.
    var peak: Int { ProcessMemory.peak(ofProcess: pid) }

    typealias Reply = ProxyFixture.Reply

    func get(_ originPath: String, _ options: String, from origin: ImageServer) async throws -> Reply {
        let source = origin.url(originPath).absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return try await get(path: "/unsafe/\(options)/plain/\(source)")
    }

    func get(path: String) async throws -> Reply {
        let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Array(body.readableBytesView))
    }
}

func withProxyChild(_ body: (ProxyChild, ImageServer) async throws -> Void) async throws {
    try await withProxyProcess { proxy, origin, _ in try await body(proxy, origin) }
}

/// ``withProxyChild(_:)`` with `environment` added to the proxy's, its standard error written
/// to `errorOutput`, and its process at hand.
func withProxyProcess(
    environment: [String: String] = ["MAGPIE_LOG_LEVEL": "warning"], errorOutput: URL? = nil, _ body: (ProxyChild, ImageServer, Process) async throws -> Void
) async throws {
    let tool = try MagpieTool.locate()
    defer { tool.cleanUp() }
    let origin = try await ImageServer.start()
    let (process, output) = try tool.start(
        ["proxy", "--port", "0", "--allow-unsigned", "--allow-addresses", "loopback", "--no-disk-cache"],
        environment: environment, errorOutput: errorOutput)
    defer { if process.isRunning { process.terminate() } }
    let port = try await MagpieTool.listeningPort(in: output)
    // A connection a request, as 64 browsers would open them.
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 128)
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    do {
        try await body(ProxyChild(port: port, pid: process.processIdentifier, client: client), origin, process)
    } catch {
        try? await client.shutdown()
        await origin.shutdown()
        throw error
    }
    try? await client.shutdown()
    await origin.shutdown()
}
