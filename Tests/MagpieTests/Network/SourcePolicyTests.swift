import Foundation
import Magpie
import MagpieTesting
import Testing

/// A source allow-list holds on every hop: the requested URL, each redirect before it is
/// followed, and the redirects behind bytes already on disk. Two loopback origins stand for an
/// allowed host (127.0.0.1) with an open redirect and a host off the list (127.0.0.2); the
/// off-list origin's request log proves it was never contacted.
@Suite("Source policy")
struct SourcePolicyTests {
    static let png = NetworkTesting.png

    @Test func hostsMatchInEverySpelling() {
        let policy = SourcePolicy(allowedHosts: ["Example.COM.", "*.cdn.example.org", "127.0.0.1", "[::1]", "localhost"])
        for host in ["example.com", "EXAMPLE.com.", "ex%61mple.com", "img.cdn.example.org", "a.b.cdn.example.org"] {
            #expect(policy.allows(host: host), "\(host)")
        }
        // One address, written as the resolver reads it.
        for host in ["127.0.0.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.1", "[::1]", "::1", "[0:0:0:0:0:0:0:1]", "LOCALHOST"] {
            #expect(policy.allows(host: host), "\(host)")
        }
        for host in [
            "cdn.example.org", "evil-example.com", "example.com.evil.net", "notexample.com", "127.0.0.2", "2130706434",
            "[::ffff:127.0.0.1]", "::ffff:7f00:1", "localhost.localdomain", "example.com%2f.evil.net", "", "[fe80::1%25eth0]",
        ] {
            #expect(!policy.allows(host: host), "\(host)")
        }
        // A name and its address are different hosts.
        #expect(!SourcePolicy(allowedHosts: ["localhost"]).allows(host: "127.0.0.1"))
        #expect(!SourcePolicy(allowedHosts: ["127.0.0.1"]).allows(host: "localhost"))
        // A wildcard names subdomains of a name, never addresses.
        #expect(!SourcePolicy(allowedHosts: ["*.0.0.1"]).allows(host: "127.0.0.1"))
        #expect(SourcePolicy().allows(host: "anything.example"))
    }

    /// Every redirect status, absolute and relative `Location`, to a host off the list and to
    /// other spellings of it: refused at that hop, naming the host, and the host never sees a
    /// request. A redirect back to the allowed host loads.
    @Test func redirectsToAHostOffTheListAreRefusedAtTheirHop() async throws {
        try await withOrigins { allowed, offList in
            let target = "127.0.0.2:\(offList.port)/a.png"
            var refused: [(path: String, host: String)] = []
            for status in [301, 302, 303, 307, 308] {
                allowed.serve("/\(status)", .redirect(to: "http://\(target)", status: status))
                refused.append(("/\(status)", "127.0.0.2"))
            }
            let spellings = [
                ("//\(target)", "127.0.0.2"),  // relative (network-path) Location
                ("http://2130706434:\(offList.port)/a.png", "127.0.0.2"),
                ("http://0x7f.0.0.2:\(offList.port)/a.png", "127.0.0.2"),
                ("http://[::ffff:127.0.0.2]:\(offList.port)/a.png", "::ffff:127.0.0.2"),
                ("http://LOCALHOST.:\(offList.port)/a.png", "localhost"),
                ("http://[::1]:\(offList.port)/a.png", "::1"),
            ]
            for (index, (location, host)) in spellings.enumerated() {
                allowed.serve("/spelling\(index)", .redirect(to: location, status: 301))
                refused.append(("/spelling\(index)", host))
            }
            allowed.serve("/a.png", .image(Self.png))
            allowed.serve("/back-absolute", .redirect(to: allowed.url("/a.png").absoluteString, status: 307))
            allowed.serve("/back-relative", .redirect(to: "a.png", status: 308))

            try await NetworkTesting.withPipeline({ configure(&$0, allowing: ["127.0.0.1"]) }) { pipeline in
                for (path, host) in refused {
                    let error = await Self.error(loading: allowed.url(path), with: pipeline)
                    #expect(error == .sourceNotAllowed(host: host, hop: 1, url: allowed.url(path)), "\(path)")
                    #expect(error?.description.contains("Redirect 1 of \(allowed.url(path).absoluteString) leads to the host '\(host)'") == true)
                }
                for path in ["/back-absolute", "/back-relative"] {
                    let image = try await pipeline.image(for: allowed.url(path))
                    #expect(image.width == 64, "\(path)")
                }
            }
            #expect(offList.totalRequests == 0, "\(offList.requestLog)")
            #expect(allowed.statistics(for: "/a.png").requests == 2)
        }
    }

    @Test func theHopIsCountedAndTheFirstURLIsCheckedToo() async throws {
        try await withOrigins { allowed, offList in
            allowed.serve("/one", .redirect(to: "/two"))
            allowed.serve("/two", .redirect(to: offList.url("/a.png").absoluteString))
            try await NetworkTesting.withPipeline({ configure(&$0, allowing: ["127.0.0.1"]) }) { pipeline in
                #expect(await Self.error(loading: allowed.url("/one"), with: pipeline) == .sourceNotAllowed(host: "127.0.0.2", hop: 2, url: allowed.url("/one")))
                let direct = await Self.error(loading: offList.url("/a.png"), with: pipeline)
                #expect(direct == .sourceNotAllowed(host: "127.0.0.2", hop: 0, url: offList.url("/a.png")))
                #expect(direct?.stage == .request)
            }
            #expect(offList.totalRequests == 0)
        }
    }

    /// An allowed name redirecting to its own address in another spelling: the list names
    /// hosts, so the address is off it.
    @Test func anAllowedNamesAddressIsAnotherHost() async throws {
        try await withOrigins { allowed, _ in
            allowed.serve("/a.png", .image(Self.png))
            allowed.serve("/to-address", .redirect(to: allowed.url("/a.png").absoluteString))
            allowed.serve("/to-name", .redirect(to: "http://localhost:\(allowed.port)/a.png"))
            try await NetworkTesting.withPipeline({ configure(&$0, allowing: ["localhost"]) }) { pipeline in
                let start = try #require(URL(string: "http://localhost:\(allowed.port)/to-address"))
                #expect(await Self.error(loading: start, with: pipeline) == .sourceNotAllowed(host: "127.0.0.1", hop: 1, url: start))
                let image = try await pipeline.image(for: try #require(URL(string: "http://localhost:\(allowed.port)/to-name")))
                #expect(image.width == 64)
            }
            #expect(allowed.statistics(for: "/a.png").requests == 1)
        }
    }

    /// A request's own policy holds even where the pipeline has none, and bytes that an
    /// earlier load fetched through a refused host are not served to it from either cache.
    @Test func aRequestsOwnPolicyHoldsAgainstBothCaches() async throws {
        try await withOrigins { allowed, offList in
            offList.serve("/a.png", .image(Self.png))
            allowed.serve("/hop", .redirect(to: offList.url("/a.png").absoluteString))
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-sources-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            try await NetworkTesting.withPipeline({
                $0.diskCache = .init(directory: directory)
                $0.memoryCache = .default
                $0.diskCachePolicy = .originalsAndVariants
            }) { (pipeline: ImagePipeline) async throws in
                for thumbnail in [nil, ImageRequest.Thumbnail(width: 16, height: 16)] {
                    var plain = ImageRequest(url: allowed.url("/hop"))
                    plain.thumbnail = thumbnail
                    #expect(try await pipeline.image(for: plain).image.width > 0)
                    var ruled = plain
                    ruled.sourcePolicy = SourcePolicy(allowedHosts: ["127.0.0.1"])
                    await #expect(throws: MagpieError.sourceNotAllowed(host: "127.0.0.2", hop: 1, url: allowed.url("/hop"))) {
                        try await pipeline.image(for: ruled)
                    }
                    // The refusal is the request's, not the URL's: it is not blocklisted.
                    #expect(try await pipeline.image(for: plain).source == .memory)
                }
            }
            #expect(offList.statistics(for: "/a.png").requests == 1)

            // Another process with the same cache directory and a policy refuses the entry
            // that came through the off-list host.
            try await NetworkTesting.withPipeline({
                $0.diskCache = .init(directory: directory)
                configure(&$0, allowing: ["127.0.0.1"])
            }) { pipeline in
                #expect(await Self.error(loading: allowed.url("/hop"), with: pipeline) == .sourceNotAllowed(host: "127.0.0.2", hop: 1, url: allowed.url("/hop")))
            }
            #expect(offList.statistics(for: "/a.png").requests == 1)
        }
    }

    // MARK: - Helpers

    private func configure(_ configuration: inout ImagePipeline.Configuration, allowing hosts: [String]) {
        configuration.sourcePolicy = SourcePolicy(allowedHosts: hosts)
    }

    private func withOrigins(_ body: (ImageServer, ImageServer) async throws -> Void) async throws {
        let allowed = try await ImageServer.start(address: "127.0.0.1")
        let offList = try await ImageServer.start(address: "127.0.0.2")
        do {
            try await body(allowed, offList)
        } catch {
            await allowed.shutdown()
            await offList.shutdown()
            throw error
        }
        await allowed.shutdown()
        await offList.shutdown()
    }

    static func error(loading url: URL, with pipeline: ImagePipeline) async -> MagpieError? {
        do {
            _ = try await pipeline.image(for: url)
            Issue.record("\(url) loaded, but it should have been refused")
            return nil
        } catch {
            return error
        }
    }
}
