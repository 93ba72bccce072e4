import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// Issue 36: `/metrics` carries imgproxy's metric names, labels and types, so that a dashboard
/// made for imgproxy reads Magpie unchanged; read here by Prometheus's own text parser
/// (Tests/Reference/prometheus_text.py, PyPI prometheus-client), its counts checked against the
/// requests sent.
@Suite("imgproxy's metrics")
struct ImgproxyMetricsTests {
    struct Sample: Decodable {
        let family: String
        let type: String
        let name: String
        let labels: [String: String]
        let value: Double
    }

    static let parser = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Reference/prometheus_text.py")

    /// `/metrics` as Prometheus's parser reads it.
    static func scrape(_ fixture: ProxyFixture) async throws -> [Sample] {
        let reply = try await fixture.get(fixture.mount.base + "/metrics")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-metrics-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(reply.body).write(to: file)
        return try JSONDecoder().decode([Sample].self, from: PythonScript.run(parser, [file.path]))
    }

    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    @Test(arguments: [nil, "imgproxy"] as [String?])
    func imgproxysNamesCountTheRequestsSent(namespace: String?) async throws {
        try await withProxyFixture(configure: { configuration in
            configuration.prometheusNamespace = namespace
            configuration.processingSlots = 3
        }) { fixture in
            fixture.origin.serve("/a.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg)))
            fixture.origin.serve("/gone.jpg", .status(404))
            var statuses: [Int] = []
            for size in [64, 65, 66] { statuses.append(try await fixture.get(fixture.path("/a.jpg", "rs:fill:\(size):\(size)")).status) }
            statuses.append(try await fixture.get(fixture.path("/a.jpg", "rs:fill:64:64")).status)  // from memory
            statuses.append(try await fixture.get(fixture.path("/gone.jpg", "rs:fill:64:64")).status)
            statuses.append(try await fixture.get("/unsigned/rs:fill:64:64/plain/x").status)  // refused before any work
            #expect(statuses == [200, 200, 200, 200, 404, 403])
            // /health and /metrics are not image requests, as imgproxy's are not.
            _ = try await fixture.get(fixture.mount.base + "/health")

            let samples = try await Self.scrape(fixture)
            let prefix = namespace.map { $0 + "_" } ?? ""
            func family(_ name: String) -> String? { samples.first { $0.family == prefix + name }?.type }
            #expect(family("requests") == "counter")
            #expect(family("status_codes") == "counter")
            #expect(family("errors") == "counter")
            #expect(family("request_duration_seconds") == "histogram")
            #expect(family("request_span_duration_seconds") == "histogram")
            for gauge in ["requests_in_progress", "images_in_progress", "workers", "workers_utilization", "vips_memory_bytes", "vips_max_memory_bytes", "vips_allocs"] {
                #expect(family(gauge) == "gauge", "\(gauge)")
            }

            #expect(Self.value(samples, prefix + "requests_total") == 6)
            #expect(Self.value(samples, prefix + "status_codes_total", ["status": "200"]) == 4)
            #expect(Self.value(samples, prefix + "status_codes_total", ["status": "404"]) == 1)
            #expect(Self.value(samples, prefix + "status_codes_total", ["status": "403"]) == 1)
            #expect(Self.value(samples, prefix + "errors_total", ["type": "downloading"]) == 1)
            #expect(Self.value(samples, prefix + "errors_total", ["type": "processing"]) == 0)
            #expect(Self.value(samples, prefix + "request_duration_seconds_count") == 6)
            // Three made (each downloaded: no disk hit for a new size of a fetched source is
            // possible here only for the original, which the disk keeps), one from memory, the
            // 404 downloaded, the refused one never admitted.
            #expect(Self.value(samples, prefix + "request_span_duration_seconds_count", ["span": "queue"]) == 4)
            #expect(Self.value(samples, prefix + "request_span_duration_seconds_count", ["span": "processing"]) == 3)
            #expect((Self.value(samples, prefix + "request_span_duration_seconds_count", ["span": "downloading"]) ?? 0) >= 2)
            #expect(Self.value(samples, prefix + "requests_in_progress") == 0)
            #expect(Self.value(samples, prefix + "images_in_progress") == 0)
            #expect(Self.value(samples, prefix + "workers") == 3)
            #expect(Self.value(samples, prefix + "workers_utilization") == 0)
            #expect((Self.value(samples, prefix + "vips_max_memory_bytes") ?? 0) > 0, "libvips held pixels for the three results")
            // Magpie's own beside them.
            #expect(Self.value(samples, "magpie_proxy_requests_total", ["status": "200"]) == 4)
        }
    }

    /// A request being answered is in progress in both names, and takes its share of the slots.
    @Test func aRequestBeingAnsweredIsInProgress() async throws {
        try await withProxyFixture(configure: { $0.processingSlots = 4 }) { fixture in
            let gate = Gate()
            fixture.origin.serve("/slow.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg), gate: gate))
            async let answered = fixture.get(fixture.path("/slow.jpg", "rs:fill:64:64"))
            try await waitUntil { fixture.origin.statistics(for: "/slow.jpg").requests == 1 }
            let during = try await Self.scrape(fixture)
            #expect(Self.value(during, "requests_in_progress") == 1)
            #expect(Self.value(during, "workers_utilization") == 25)
            #expect(Self.value(during, "magpie_proxy_requests_in_flight") == 1)
            gate.open()
            #expect(try await answered.status == 200)
            let after = try await Self.scrape(fixture)
            #expect(Self.value(after, "requests_in_progress") == 0 && Self.value(after, "magpie_proxy_requests_in_flight") == 0)
        }
    }
}
