import AsyncHTTPClient
import Foundation
import Magpie
import MagpieOrigin
import MagpieTesting
import NIOCore
import NIOHTTP1
import Testing

/// Issue 36's acceptance: `magpie proxy` exporting its traces over OTLP/HTTP to a receiver on
/// loopback (Tests/Reference/otlp_receiver.py) that decodes them with OpenTelemetry's own
/// protocol definitions, so what is checked is what a collector would receive. One test at a
/// time: each starts a proxy and a receiver, and seven at once beside the other command suites
/// slowed the attack probes' text rendering past their 5 s bound (CI rehearsal).
@Suite("magpie proxy's OpenTelemetry traces", .serialized)
struct OpenTelemetryCommandTests {
    /// A span as the receiver wrote it.
    struct ExportedSpan: Decodable {
        struct Link: Decodable { let trace_id: String, span_id: String }
        let name: String
        let trace_id: String
        let span_id: String
        let parent_span_id: String
        let kind: String
        let attributes: [String: JSONValue]
        let links: [Link]
        /// Nanoseconds since the epoch.
        let start: UInt64
        let end: UInt64
        let status: String
        let resource: [String: JSONValue]
    }

    enum JSONValue: Decodable, Equatable {
        case string(String), number(Double), bool(Bool), other
        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if let text = try? value.decode(String.self) {
                self = .string(text)
            } else if let number = try? value.decode(Double.self) {
                self = .number(number)
            } else if let bool = try? value.decode(Bool.self) {
                self = .bool(bool)
            } else {
                self = .other
            }
        }
        /// OTLP's JSON mapping writes 64-bit integers as strings.
        var integer: Int? {
            switch self {
            case .string(let text): Int(text)
            case .number(let number): Int(number)
            default: nil
            }
        }
    }

    static let receiverScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Reference/otlp_receiver.py")

    /// A proxy exporting to a fresh receiver, and a loopback origin.
    struct Setup {
        let proxy: ProxyChild
        let origin: ImageServer
        let spansFile: URL
        /// The proxy's standard error: its log.
        let logFile: URL

        /// Every span received so far.
        var spans: [ExportedSpan] {
            let text = (try? String(contentsOf: spansFile, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(ExportedSpan.self, from: Data($0.utf8)) }
        }

        /// Waits for the spans `until` accepts (the exporter sends in batches, every 100 ms here).
        func spans(until done: ([ExportedSpan]) -> Bool) async throws -> [ExportedSpan] {
            var latest: [ExportedSpan] = []
            try await waitUntil(timeout: .seconds(30)) {
                latest = spans
                return done(latest)
            }
            return latest
        }

        func path(_ originPath: String, _ options: String = "rs:fill:64:64") -> String {
            let source = origin.url(originPath).absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            return "/unsafe/\(options)/plain/\(source)"
        }

        func get(_ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> Int {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(proxy.port)\(path)")
            request.method = method
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            let response = try await proxy.client.execute(request, timeout: .seconds(60))
            _ = try await response.body.collect(upTo: 16 << 20)
            return Int(response.status.code)
        }
    }

    static func withExportingProxy(environment extra: [String: String] = [:], _ body: (Setup, Process) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-otlp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let spansFile = folder.appendingPathComponent("spans.jsonl")
        let (receiverPort, receiver) = try await LoopbackPort.retryingIfTaken { port in
            try await DaemonProcess(
                executable: "python3", arguments: [receiverScript.path, "\(port)", spansFile.path], port: port,
                outputFile: folder.appendingPathComponent("receiver.log"))
        }
        defer { receiver.stop() }
        let environment = [
            "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(receiverPort)",
            "OTEL_SERVICE_NAME": "magpie-under-test", "OTEL_BSP_SCHEDULE_DELAY": "100", "MAGPIE_LOG_LEVEL": "warning",
        ].merging(extra) { $1 }
        let logFile = folder.appendingPathComponent("proxy.log")
        try await withProxyProcess(environment: environment, errorOutput: logFile) { proxy, origin, process in
            try await body(Setup(proxy: proxy, origin: origin, spansFile: spansFile, logFile: logFile), process)
        }
    }

    static func span(_ name: String, of trace: String, in spans: [ExportedSpan]) throws -> ExportedSpan {
        try #require(spans.first { $0.name == name && $0.trace_id == trace && $0.attributes["magpie.joined"] == nil }, "no \(name) span")
    }

    /// A cold request continuing the client's trace: the server span under the client's, the
    /// stages below it in the order they wait for each other, with what an operator filters
    /// on; the replica named on the resource; the origin asked with the same trace.
    @Test func aColdRequestsStagesNestUnderTheClientsTrace() async throws {
        try await Self.withExportingProxy { setup, _ in
            setup.origin.serve("/a.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg)))
            let clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736", clientSpan = "00f067aa0ba902b7"
            let status = try await setup.get(setup.path("/a.jpg"), headers: [("traceparent", "00-\(clientTrace)-\(clientSpan)-01")])
            #expect(status == 200)
            let spans = try await setup.spans { spans in spans.contains { $0.trace_id == clientTrace && $0.kind == "SPAN_KIND_SERVER" } }
            let server = try #require(spans.first { $0.trace_id == clientTrace && $0.kind == "SPAN_KIND_SERVER" })
            #expect(server.parent_span_id == clientSpan, "the client's span is the server span's parent")
            #expect(server.attributes["http.response.status_code"]?.integer == 200)
            // The options an operator filters on; the source, which may carry credentials, not.
            #expect(server.attributes["url.path"] == .string("/unsafe/rs:fill:64:64/REDACTED"))
            #expect(server.resource["service.name"] == .string("magpie-under-test"))
            #expect(server.resource["host.name"] != nil && server.resource["service.instance.id"] != nil, "the replica is named")

            // The proxy keeps no decoded images, so a thumbnail is decoded, cut and encoded in one
            // libvips pipeline (no memory-cache load, no process stage): the encode asks the decode
            // to encode as it goes, which its span tells of, and the decode waits for the fetch,
            // as on every other path.
            let (encode, decode, fetch) = (
                try Self.span("magpie.encode", of: clientTrace, in: spans), try Self.span("magpie.decode", of: clientTrace, in: spans),
                try Self.span("magpie.fetch", of: clientTrace, in: spans)
            )
            #expect(spans.filter { $0.trace_id == clientTrace }.count == 4, "\(spans.filter { $0.trace_id == clientTrace }.map(\.name))")
            #expect(encode.parent_span_id == server.span_id)
            #expect(fetch.parent_span_id == decode.span_id)
            #expect(decode.parent_span_id == encode.span_id)
            #expect(decode.attributes["magpie.one_pass"] == .bool(true))
            #expect(fetch.attributes["magpie.source.host"] == .string("127.0.0.1"))
            #expect(fetch.attributes["magpie.answered.from"] == .string("network"))
            // The size written: the 64 px asked.
            #expect(decode.attributes["magpie.image.width"]?.integer == 64)
            #expect(encode.attributes["magpie.image.format"] != nil)

            let sent = try #require(setup.origin.statistics(for: "/a.jpg").lastRequestHeaders["traceparent"], "the fetch carries the trace on")
            let parts = sent.split(separator: "-")
            #expect(parts.count == 4 && parts[1] == clientTrace, "\(sent)")
            #expect(parts.count == 4 && parts[2] == fetch.span_id, "the origin's parent is the fetch span")
        }
    }

    /// A `HEAD` is answered as a `GET` is, and its span says which it was.
    @Test func aHeadRequestsSpanIsNamedForItsMethod() async throws {
        try await Self.withExportingProxy { setup, _ in
            setup.origin.serve("/h.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg)))
            let trace = "66666666666666666666666666666666"
            let status = try await setup.get(setup.path("/h.jpg"), method: .HEAD, headers: [("traceparent", "00-\(trace)-6666666666666666-01")])
            #expect(status == 200)
            let spans = try await setup.spans { spans in spans.contains { $0.trace_id == trace && $0.kind == "SPAN_KIND_SERVER" } }
            let server = try #require(spans.first { $0.trace_id == trace && $0.kind == "SPAN_KIND_SERVER" })
            #expect(server.name == "HEAD")
            #expect(server.attributes["http.request.method"] == .string("HEAD"))
        }
    }

    /// Two identical requests at once: the second joins the first's work, and its trace has a
    /// span linked to the work's span in the first's trace.
    @Test func aJoiningRequestLinksToTheWorkItJoined() async throws {
        try await Self.withExportingProxy { setup, _ in
            let gate = Gate()
            setup.origin.serve("/b.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg), gate: gate))
            let path = setup.path("/b.jpg")
            async let first = setup.get(path, headers: [("traceparent", "00-11111111111111111111111111111111-1111111111111111-01")])
            try await waitUntil { setup.origin.statistics(for: "/b.jpg").requests == 1 }
            async let second = setup.get(path, headers: [("traceparent", "00-22222222222222222222222222222222-2222222222222222-01")])
            // The second is in when the proxy counts it as joined (its joined span has started,
            // and ends with the work, which cannot end before the gate opens).
            let deadline = ContinuousClock.now + .seconds(30)
            while try await !setup.proxy.get(path: "/metrics").text.contains("\nmagpie_proxy_coalesced_total 1") {
                try #require(ContinuousClock.now < deadline, "the second request never joined")
                try await Task.sleep(for: .milliseconds(20))
            }
            gate.open()
            #expect(try await [first, second] == [200, 200])
            let spans = try await setup.spans { spans in spans.contains { $0.trace_id == "1" * 32 && $0.name == "magpie.encode" } }
            let work = try Self.span("magpie.encode", of: "1" * 32, in: spans)
            let joined = try #require(spans.first { $0.trace_id == "2" * 32 && $0.attributes["magpie.joined"] != nil })
            #expect(joined.name == "magpie.encode")
            #expect(joined.links.map(\.span_id) == [work.span_id] && joined.links.map(\.trace_id) == [work.trace_id])
            #expect(joined.end >= work.end, "the joined span lasts until the work ends")
            #expect(setup.origin.statistics(for: "/b.jpg").requests == 1, "the work ran once")
        }
    }

    /// A source that fails: its error is recorded on the fetch span, and the request's own
    /// span says what was answered.
    @Test func aFailingSourceRecordsItsError() async throws {
        try await Self.withExportingProxy { setup, _ in
            setup.origin.serve("/gone.jpg", .status(404))
            let trace = "33333333333333333333333333333333"
            let status = try await setup.get(setup.path("/gone.jpg"), headers: [("traceparent", "00-\(trace)-3333333333333333-01")])
            #expect(status == 404)
            let spans = try await setup.spans { spans in spans.contains { $0.trace_id == trace && $0.kind == "SPAN_KIND_SERVER" } }
            let fetch = try Self.span("magpie.fetch", of: trace, in: spans)
            #expect(fetch.status == "STATUS_CODE_ERROR")
            let server = try #require(spans.first { $0.trace_id == trace && $0.kind == "SPAN_KIND_SERVER" })
            #expect(server.attributes["http.response.status_code"]?.integer == 404)
        }
    }

    /// Settings the exporter cannot honour stop the proxy at start, saying which and why.
    @Test(arguments: [
        (["IMGPROXY_OPEN_TELEMETRY_ENABLE": "yes"], "IMGPROXY_OPEN_TELEMETRY_ENABLE is true or false"),
        (["IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"], "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"),
    ])
    func unusableSettingsStopTheProxy(environment: [String: String], message: String) async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let result = try await tool.run(["proxy", "--port", "0", "--allow-unsigned"], environment: environment, limit: .seconds(60))
        #expect(result.status != 0)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    /// The access log in imgproxy's formats, each line naming the trace of its request.
    @Test(arguments: ["json", "structured"])
    func logLinesCarryTheirTrace(format: String) async throws {
        try await Self.withExportingProxy(environment: ["IMGPROXY_LOG_FORMAT": format, "MAGPIE_LOG_LEVEL": "", "IMGPROXY_LOG_LEVEL": "info"]) { setup, process in
            setup.origin.serve("/d.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg)))
            let trace = "44444444444444444444444444444444"
            #expect(try await setup.get(setup.path("/d.jpg"), headers: [("traceparent", "00-\(trace)-4444444444444444-01")]) == 200)
            process.terminate()
            _ = await MagpieTool.waitForExit(process)
            let lines = try String(contentsOf: setup.logFile, encoding: .utf8).split(separator: "\n").map(String.init)
            let access = try #require(lines.first { $0.contains("request") && $0.contains("d%2Ejpg") }, "\(lines)")
            let fields: [String: String]
            if format == "json" {
                fields = try #require(try JSONSerialization.jsonObject(with: Data(access.utf8)) as? [String: String], "\(access)")
            } else {
                fields = Dictionary(access.split(separator: " ").compactMap { pair in
                    pair.firstIndex(of: "=").map { (String(pair[..<$0]), String(pair[pair.index(after: $0)...])) }
                }) { first, _ in first }
            }
            #expect(fields["msg"] == "request")
            #expect(fields["level"] == "info")
            #expect(fields["status"] == "200")
            #expect(fields["trace_id"] == trace, "\(access)")
            #expect(fields["span_id"]?.count == 16, "\(access)")
        }
    }

    /// The Observing the proxy article's settings as written (but the collector's address): a
    /// request its caller traced is exported under the article's service name, logged as JSON
    /// with its trace, and counted under imgproxy's namespaced names.
    @Test func theArticlesSettingsTraceLogAndCount() async throws {
        let article = DocCArticle("Sources/MagpieServer/MagpieServer.docc/ObservingTheProxy.md").settings()
        #expect(article.count == 7 && article["OTEL_TRACES_SAMPLER"] == "parentbased_traceidratio", "\(article)")
        var settings = article
        settings["OTEL_EXPORTER_OTLP_ENDPOINT"] = nil  // the receiver's, set by the fixture
        settings["MAGPIE_LOG_LEVEL"] = ""
        try await Self.withExportingProxy(environment: settings) { setup, process in
            setup.origin.serve("/e.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg)))
            let trace = "55555555555555555555555555555555"
            #expect(try await setup.get(setup.path("/e.jpg"), headers: [("traceparent", "00-\(trace)-5555555555555555-01")]) == 200)
            let spans = try await setup.spans { spans in spans.contains { $0.trace_id == trace && $0.kind == "SPAN_KIND_SERVER" } }
            #expect(spans.first { $0.trace_id == trace }?.resource["service.name"] == .string("thumbnails"))
            let metrics = try await setup.proxy.get(path: "/metrics").text
            #expect(metrics.contains("\nimgproxy_requests_total 1"), "\(metrics.prefix(3000))")
            process.terminate()
            _ = await MagpieTool.waitForExit(process)
            let log = try String(contentsOf: setup.logFile, encoding: .utf8)
            #expect(log.contains("\"msg\":\"request\"") && log.contains("\"trace_id\":\"\(trace)\""), "\(log)")
        }
    }

    /// With sampling off nothing is exported, even what is left when the proxy stops.
    @Test func withSamplingOffNothingIsExported() async throws {
        try await Self.withExportingProxy(environment: ["OTEL_TRACES_SAMPLER": "always_off"]) { setup, process in
            setup.origin.serve("/c.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg)))
            for index in 0..<5 { #expect(try await setup.get(setup.path("/c.jpg", "rs:fill:\(64 + index):64")) == 200) }
            process.terminate()
            _ = await MagpieTool.waitForExit(process)
            #expect(setup.spans.isEmpty)
        }
    }
}

private func * (text: String, count: Int) -> String { String(repeating: text, count: count) }
