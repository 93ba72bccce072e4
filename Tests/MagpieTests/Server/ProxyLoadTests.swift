import AsyncHTTPClient
import Foundation
import Logging
import Magpie
import MagpieServer
import MagpieTesting
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

/// The proxy under concurrent requests: identical work done once, clients that leave, a full
/// queue, slow sources, and what it reports about itself.
@Suite("Proxy under load")
struct ProxyLoadTests {
    static let photo = ProxyServingTests.photo

    @Test func identicalConcurrentRequestsDoTheWorkOnce() async throws {
        let decoder = GatedDecoder()
        try await withProxyFixture(configure: { $0.pipeline.decoder = decoder }) { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let path = fixture.path("/a.jpg", "s:100")
            let replies = try await withThrowingTaskGroup(of: ProxyFixture.Reply.self) { group in
                for _ in 0..<4 { group.addTask { try await fixture.get(path) } }
                try await waitUntil { decoder.callCount == 1 }
                // The other three join the work held in the decoder.
                _ = try await fixture.metric("magpie_proxy_coalesced_total", reaching: 3)
                decoder.open()
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.allSatisfy { $0.status == 200 && $0.body == replies[0].body })
            #expect(decoder.callCount == 1)
            #expect(fixture.origin.statistics(for: "/a.jpg").requests == 1)
            #expect(try await fixture.metric("magpie_proxy_coalesced_total") == 3)
        }
    }

    /// A client that hangs up stops the download it was waiting for; with another client still
    /// waiting, the work goes on for that one.
    @Test func clientThatLeavesStopsTheWorkUnlessAnotherWaits() async throws {
        try await withProxyFixture { fixture in
            var slow = ServedRoute.image(Self.photo)
            slow.bytesPerSecond = 20_000
            fixture.origin.serve("/slow.jpg", slow)
            let path = fixture.path("/slow.jpg", "s:100")
            let leaving = try await RawClient.connect(port: fixture.port)
            try await leaving.send("GET \(path) HTTP/1.1\r\nHost: proxy\r\n\r\n")
            try await waitUntil { fixture.origin.statistics(for: "/slow.jpg").bytesSent > 0 }
            try await leaving.close()
            // The download was abandoned: the origin's connection closed before its body went out.
            try await waitUntil { fixture.origin.statistics(for: "/slow.jpg").connectionsClosedEarly == 1 }
            // The load is counted once its caller has unwound, which may be after the origin saw the close.
            try await waitUntil { fixture.proxy.pipeline.statistics.cancelled == 1 }

            let second = Gate()
            fixture.origin.serve("/slow2.jpg", .image(Self.photo, gate: second))
            let path2 = fixture.path("/slow2.jpg", "s:100")
            let leaver = try await RawClient.connect(port: fixture.port)
            try await leaver.send("GET \(path2) HTTP/1.1\r\nHost: proxy\r\n\r\n")
            try await waitUntil { fixture.origin.statistics(for: "/slow2.jpg").requests == 1 }
            async let staying = fixture.get(path2)
            try await waitUntil { fixture.proxy.pipeline.statistics.coalesced >= 1 }
            try await leaver.close()
            // The leaver's request has ended (499, like the first one's) before the source arrives.
            #expect(try await fixture.metric("magpie_proxy_requests_total{status=\"499\"}", reaching: 2) == 2)
            second.open()
            #expect(try await staying.status == 200)
            #expect(fixture.origin.statistics(for: "/slow2.jpg").requests == 1)
            #expect(fixture.origin.statistics(for: "/slow2.jpg").connectionsClosedEarly == 0)
        }
    }

    @Test func fullQueueIs503WithRetryAfter() async throws {
        let decoder = GatedDecoder()
        try await withProxyFixture(configure: { configuration in
            configuration.pipeline.decoder = decoder
            configuration.processingSlots = 1
            configuration.queueLimit = 1
        }) { fixture in
            for name in ["a", "b", "c"] { fixture.origin.serve("/\(name).jpg", .image(Self.photo)) }
            async let first = fixture.get(fixture.path("/a.jpg", "s:100"))
            try await waitUntil { decoder.callCount == 1 }
            async let second = fixture.get(fixture.path("/b.jpg", "s:100"))
            #expect(try await fixture.metric("magpie_proxy_queued_requests", reaching: 1) == 1)
            let third = try await fixture.get(fixture.path("/c.jpg", "s:100"))
            #expect(third.status == 503)
            #expect(third.header("Retry-After") == "1")
            #expect(third.header("Cache-Control") == "no-store")
            decoder.open()
            #expect(try await first.status == 200)
            #expect(try await second.status == 200)
        }
    }

    /// Progressive JPEGs hold every coefficient while decoding: beyond the memory budget the
    /// next one waits, though a slot is free.
    @Test func progressiveDecodesShareTheMemoryBudget() async throws {
        let decoder = GatedDecoder()
        let progressive = try TestImages.texture(width: 1600, height: 1200, format: .jpeg, progressive: true)
        try await withProxyFixture(configure: { configuration in
            configuration.pipeline.decoder = decoder
            configuration.processingSlots = 2
            configuration.decodeMemoryBudget = 4_000_000  // one of these (5.8 MB) at a time
        }) { fixture in
            fixture.origin.serve("/a.jpg", .image(progressive))
            fixture.origin.serve("/b.jpg", .image(progressive))
            async let first = fixture.get(fixture.path("/a.jpg", "s:100"))
            try await waitUntil { decoder.callCount == 1 }
            async let second = fixture.get(fixture.path("/b.jpg", "s:100"))
            // The second holds a processing slot and waits for the pipeline's decode budget.
            try await waitUntil { fixture.proxy.pipeline.decodeBudget.usage.queued == 1 }
            #expect(fixture.proxy.pipeline.decodeBudget.usage.running == 1)
            #expect(decoder.callCount == 1)
            decoder.open()
            #expect(try await first.status == 200)
            #expect(try await second.status == 200)
            #expect(decoder.callCount == 2)
        }
    }

    /// With no disk cache, requests for other sizes of a source being downloaded wait for that
    /// download without a slot, and are made from it: no batch of slots loads it again.
    @Test func queuedRequestsShareTheRunningDownloadOfTheirSource() async throws {
        try await withProxyFixture(configure: { configuration in
            configuration.pipeline.diskCache = nil
            configuration.processingSlots = 2
        }) { fixture in
            let gate = Gate()
            fixture.origin.serve("/slow.jpg", .image(Self.photo, gate: gate))
            var replies = (1...2).map { index in Task { try await fixture.get(fixture.path("/slow.jpg", "s:\(40 + index)")) } }
            // The download has started, and is held; six more sizes of the same source arrive.
            try await waitUntil { fixture.origin.statistics(for: "/slow.jpg").requests == 1 }
            replies += (3...8).map { index in Task { try await fixture.get(fixture.path("/slow.jpg", "s:\(40 + index)")) } }
            // The two admitted share the download (one of them joining it); the other six join it
            // before they are admitted.
            try await waitUntil { fixture.proxy.pipeline.statistics.coalesced >= 7 }
            #expect(fixture.proxy.processingUsage.queued == 0, "those waiting for the download hold no queue place")
            gate.open()
            for reply in replies { #expect(try await reply.value.status == 200) }
            #expect(fixture.origin.statistics(for: "/slow.jpg").requests == 1)
        }
    }

    @Test func slowSourceIs504() async throws {
        try await withProxyFixture(configure: { $0.requestTimeout = .milliseconds(300) }) { fixture in
            let gate = Gate()
            fixture.origin.serve("/stuck.jpg", .image(Self.photo, gate: gate))
            let reply = try await fixture.get(fixture.path("/stuck.jpg", "s:100"))
            #expect(reply.status == 504)
            #expect(reply.header("Cache-Control") == "no-store")
            gate.open()
        }
    }

    @Test func healthMetricsAndAccessLog() async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let health = try await fixture.get("/health")
            let installed = try LibvipsTests.installedVersion()
            #expect(health.status == 200 && health.text.hasPrefix("ok, libvips \(installed), SIMD "), "\(health.text)")
            // thumbor's health check, as thumbor answers it (no-cache, as its own test asks), for GET and HEAD.
            let thumbors = try await fixture.get("/healthcheck")
            #expect(thumbors.status == 200 && thumbors.text == "WORKING" && thumbors.header("Cache-Control") == "no-cache")
            var head = HTTPClientRequest(url: "http://127.0.0.1:\(fixture.port)/healthcheck")
            head.method = .HEAD
            #expect(try await fixture.client.execute(head, timeout: .seconds(60)).status.code == 200)
            let path = fixture.path("/a.jpg", "s:100")
            _ = try await fixture.get(path, headers: ["X-Request-Id": "req-42"])
            _ = try await fixture.get(path)
            // Signed, so the signature passes and the source is what is wrong: imgproxy's 404.
            let signer = URLSigner(keys: [try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)])
            _ = try await fixture.get(signer.sign("/s:1/plain/x"))
            let metrics = try await fixture.get("/metrics")
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(try await fixture.metric("magpie_proxy_requests_total{status=\"200\"}") == 2)
            #expect(try await fixture.metric("magpie_proxy_requests_total{status=\"404\"}") == 1)
            #expect(try await fixture.metric("magpie_proxy_cache_hits_total{tier=\"memory\"}") == 1)
            #expect(try await fixture.metric("magpie_proxy_requests_in_flight") == 0)
            for stage in ["queue", "download", "decode", "encode"] {
                #expect(try await fixture.metric("magpie_proxy_stage_duration_seconds_count{stage=\"\(stage)\"}") == 1, "\(stage)")
            }
            // The pipeline's own metrics are in the same registry.
            #expect(metrics.text.contains("magpie_downloads_total"), "\(metrics.text.prefix(2000))")
            let lines = fixture.log.messages(atLeast: .info).filter { $0.message == "request" }
            #expect(lines.count == 3)
            let first = try #require(lines.first)
            #expect(first.metadata["id"] == "req-42")
            #expect(first.metadata["status"] == "200" && first.metadata["path"] == path)
            #expect(lines[1].metadata["cache"] == "memory")
        }
    }
}

/// A bare TCP client, for a request whose client hangs up before the answer.
struct RawClient {
    let channel: any Channel

    static func connect(port: Int) async throws -> RawClient {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
        return RawClient(channel: channel)
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    func close() async throws {
        try await channel.close().get()
    }
}
