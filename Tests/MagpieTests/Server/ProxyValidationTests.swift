import Configuration
import Foundation
import Magpie
@testable import MagpieServer
import MagpieTesting
import Testing

/// The proxy's validators and conditional requests, as Magpie does them and as imgproxy's
/// settings ask (`IMGPROXY_USE_ETAG`, `IMGPROXY_USE_LAST_MODIFIED`, their busters,
/// `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`), against a loopback origin that answers conditions.
@Suite("Proxy validation")
struct ProxyValidationTests {
    static let photo: [UInt8] = (try? TestImages.texture(width: 400, height: 300, format: .jpeg)) ?? []
    static let sourceDate = "Wed, 21 Oct 2015 07:28:00 GMT"

    static func route(etag: String? = nil, lastModified: String? = nil, headers: [String: String] = [:]) -> ServedRoute {
        var route = ServedRoute.image(photo, contentType: "image/jpeg")
        route.etag = etag
        route.lastModified = lastModified
        route.headers = headers
        return route
    }

    /// By default a client's `If-Modified-Since` is answered from the source's date, in memory
    /// and after a restart alike; an earlier date is a 200.
    @Test func ifModifiedSinceIsAnsweredFromTheSourceDate() async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", Self.route(lastModified: Self.sourceDate))
            let path = fixture.path("/a.jpg", "s:100")
            let first = try await fixture.get(path)
            #expect(first.status == 200 && first.header("Last-Modified") == Self.sourceDate)
            let later = try await fixture.get(path, headers: ["If-Modified-Since": "Thu, 25 Feb 2021 01:45:00 GMT"])
            #expect(later.status == 304 && later.body.isEmpty && later.header("Last-Modified") == Self.sourceDate)
            let older = try await fixture.get(path, headers: ["If-Modified-Since": "Tue, 01 Oct 2013 17:31:00 GMT"])
            #expect(older.status == 200 && older.body == first.body)
            // If-None-Match decides when both are sent: a tag the answer does not have is a 200.
            let both = try await fixture.get(path, headers: ["If-None-Match": "\"other\"", "If-Modified-Since": "Thu, 25 Feb 2021 01:45:00 GMT"])
            #expect(both.status == 200)
            // Unparseable dates are not conditions.
            #expect(try await fixture.get(path, headers: ["If-Modified-Since": "yesterday"]).status == 200)
            // Magpie's own conditions never reach the origin.
            #expect(fixture.origin.statistics(for: "/a.jpg").lastRequestHeaders["if-modified-since"] == nil)
        }
    }

    /// With the origin's tags, the answer's ETag is the origin's, wrapped in the buster; a client
    /// holding it on a proxy with no copy is answered by the origin's 304, nothing downloaded.
    @Test func originTagsAreAskedOfTheOrigin() async throws {
        try await withProxyFixture(configure: { $0.validation = AnswerValidation(etags: .origin(buster: "b1")) }) { fixture in
            fixture.origin.serve("/a.jpg", Self.route(etag: "\"v1\""))
            fixture.origin.serve("/b.jpg", Self.route(etag: "\"v1\""))
            let first = try await fixture.get(fixture.path("/a.jpg", "s:100"))
            let tag = try #require(first.header("ETag"))
            #expect(tag == AnswerValidation.wrapped("\"v1\"", buster: "b1"))
            #expect(AnswerValidation.unwrapped(tag, buster: "b1") == "\"v1\"")
            #expect(AnswerValidation.unwrapped(tag, buster: "b2") == nil)
            // The same version at another source, which the proxy has not fetched: the origin answers.
            let asked = try await fixture.get(fixture.path("/b.jpg", "s:100"), headers: ["If-None-Match": tag])
            #expect(asked.status == 304 && asked.header("ETag") == tag)
            let stats = fixture.origin.statistics(for: "/b.jpg")
            #expect(stats.notModified == 1 && stats.bytesSent == 0)
            #expect(stats.lastRequestHeaders["if-none-match"] == "\"v1\"")
            // A tag from before the buster is not asked: a 200 with the current tag.
            let stale = try await fixture.get(fixture.path("/a.jpg", "s:90"), headers: ["If-None-Match": AnswerValidation.wrapped("\"v1\"", buster: "b0")])
            #expect(stale.status == 200 && stale.header("ETag") == tag)
            #expect(fixture.origin.statistics(for: "/a.jpg").lastRequestHeaders["if-none-match"] == nil)
        }
    }

    /// Without an ETag from the origin, the origin's tags mean none; `.none` sends none at all.
    @Test func noTagsWhereNoneAreWanted() async throws {
        try await withProxyFixture(configure: { $0.validation = AnswerValidation(etags: .origin(buster: nil), lastModified: .none) }) { fixture in
            fixture.origin.serve("/a.jpg", Self.route(lastModified: Self.sourceDate))
            let reply = try await fixture.get(fixture.path("/a.jpg", "s:100"))
            #expect(reply.status == 200 && reply.header("ETag") == nil && reply.header("Last-Modified") == nil)
            let asked = try await fixture.get(fixture.path("/a.jpg", "s:100"), headers: ["If-Modified-Since": "Thu, 25 Feb 2021 01:45:00 GMT"])
            #expect(asked.status == 200)
        }
    }

    /// The origin's dates: asked of the origin, raised to the buster, and a client's date not
    /// later than the buster is not asked.
    @Test func originDatesAndTheirBuster() async throws {
        let buster = try #require(HTTPDate.parse("Thu, 01 Jan 2026 00:00:00 GMT"))
        try await withProxyFixture(configure: { $0.validation = AnswerValidation(lastModified: .origin(buster: buster)) }) { fixture in
            fixture.origin.serve("/a.jpg", Self.route(lastModified: Self.sourceDate))
            let first = try await fixture.get(fixture.path("/a.jpg", "s:100"))
            #expect(first.header("Last-Modified") == "Thu, 01 Jan 2026 00:00:00 GMT")
            // Before the buster: the client's copy predates it, a 200 and nothing asked.
            let before = try await fixture.get(fixture.path("/a.jpg", "s:80"), headers: ["If-Modified-Since": "Thu, 25 Feb 2021 01:45:00 GMT"])
            #expect(before.status == 200)
            #expect(fixture.origin.statistics(for: "/a.jpg").lastRequestHeaders["if-modified-since"] == nil)
            fixture.origin.serve("/b.jpg", Self.route(lastModified: Self.sourceDate))
            let after = try await fixture.get(fixture.path("/b.jpg", "s:80"), headers: ["If-Modified-Since": "Sat, 03 Jan 2026 00:00:00 GMT"])
            #expect(after.status == 304)
            #expect(fixture.origin.statistics(for: "/b.jpg").lastRequestHeaders["if-modified-since"] == "Sat, 03 Jan 2026 00:00:00 GMT")
        }
    }

    /// thumbor's SEND_IF_MODIFIED_LAST_MODIFIED_HEADERS: answers dated by when their result was
    /// made (on the pipeline's clock), whatever the source says; a client's date not earlier is
    /// a 304, an earlier one a 200.
    @Test func answersDatedByTheirResult() async throws {
        let clock = ManualClock()
        try await withProxyFixture(configure: {
            $0.pipeline.wallClock = clock.wall
            $0.allowsUnsignedURLs = true
            try $0.read(Self.settings(["SEND_IF_MODIFIED_LAST_MODIFIED_HEADERS": "True"]))
        }) { fixture in
            fixture.origin.serve("/a.jpg", Self.route(lastModified: Self.sourceDate))
            let made = HTTPDate.format(clock.wall())
            let path = "/unsafe/100x0/\(fixture.thumborImage("/a.jpg"))"
            let first = try await fixture.get(path)
            #expect(first.status == 200 && first.header("Last-Modified") == made)
            clock.advance(by: .seconds(30))
            let again = try await fixture.get(path, headers: ["If-Modified-Since": made])
            #expect(again.status == 304 && again.header("Last-Modified") == made)
            let earlier = try await fixture.get(path, headers: ["If-Modified-Since": Self.sourceDate])
            #expect(earlier.status == 200)
        }
    }

    /// The source's caching passed on when asked (its Cache-Control, or max-age to its
    /// Expires), the proxy's own otherwise and by default.
    @Test func sourceCachingPassedOnWhenAsked() async throws {
        let expires = HTTPDate.format(Date().addingTimeInterval(600))
        try await withProxyFixture(configure: { $0.passesSourceCacheControl = true }) { fixture in
            fixture.origin.serve("/own.jpg", Self.route(headers: ["Cache-Control": "private, max-age=60"]))
            fixture.origin.serve("/expires.jpg", Self.route(headers: ["Expires": expires]))
            fixture.origin.serve("/none.jpg", Self.route())
            #expect(try await fixture.get(fixture.path("/own.jpg", "s:100")).header("Cache-Control") == "private, max-age=60")
            // From the result cache too.
            #expect(try await fixture.get(fixture.path("/own.jpg", "s:100")).header("Cache-Control") == "private, max-age=60")
            // max-age is Expires less the origin's Date, which falls between these two moments
            // (seconds apart at most, minutes on a loaded machine).
            let before = Date()
            let fromExpires = try #require(try await fixture.get(fixture.path("/expires.jpg", "s:100")).header("Cache-Control"))
            let after = Date()
            let seconds = Int(fromExpires.replacingOccurrences(of: "max-age=", with: "").replacingOccurrences(of: ", public", with: "")) ?? -1
            let expiry = try #require(HTTPDate.parse(expires))
            let earliest = Int(expiry.timeIntervalSince(after).rounded(.down)) - 1, latest = Int(expiry.timeIntervalSince(before).rounded(.up)) + 1
            #expect((earliest...latest).contains(seconds), "\(fromExpires), the origin's Date between \(earliest) and \(latest) s before Expires")
            #expect(try await fixture.get(fixture.path("/none.jpg", "s:100")).header("Cache-Control") == "public, max-age=86400, stale-while-revalidate=3600")
        }
        try await withProxyFixture { fixture in
            fixture.origin.serve("/own.jpg", Self.route(headers: ["Cache-Control": "private, max-age=60"]))
            let reply = try await fixture.get(fixture.path("/own.jpg", "s:100"))
            #expect(reply.header("Cache-Control") == "public, max-age=86400, stale-while-revalidate=3600")
        }
    }

    /// A library caller's own conditions: the origin's 304 is an answer, with its validators.
    @Test func callersOwnConditionsAreAnsweredByNotModified() async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", Self.route(etag: "\"v7\""))
            var request = ImageRequest(url: fixture.origin.url("/a.jpg"))
            request.headers = ["If-None-Match": "\"v7\""]
            do {
                _ = try await fixture.proxy.pipeline.data(for: request)
                Issue.record("a 304 came back as data")
            } catch {
                guard case .notModified(let url, let metadata)? = error as? MagpieError else {
                    Issue.record("not a 304: \(error)")
                    return
                }
                #expect(url == request.url && metadata.etag == "\"v7\"" && metadata.date != nil)
            }
            request.headers = ["If-None-Match": "\"v6\""]
            let changed = try await fixture.proxy.pipeline.data(for: request)
            #expect(changed.data == Self.photo)
        }
    }

    @Test func settingsAreReadWithImgproxysNames() throws {
        var configuration = ProxyConfiguration(cacheDirectory: FileManager.default.temporaryDirectory)
        try configuration.read(Self.settings([
            "IMGPROXY_USE_ETAG": "true", "IMGPROXY_ETAG_BUSTER": "v2", "IMGPROXY_USE_LAST_MODIFIED": "true",
            "IMGPROXY_LAST_MODIFIED_BUSTER": "2026-01-01T00:00:00Z", "IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "1",
        ]))
        #expect(configuration.validation == AnswerValidation(etags: .origin(buster: "v2"), lastModified: .origin(buster: HTTPDate.parse("Thu, 01 Jan 2026 00:00:00 GMT"))))
        #expect(configuration.passesSourceCacheControl)
        var off = ProxyConfiguration(cacheDirectory: FileManager.default.temporaryDirectory)
        try off.read(Self.settings(["IMGPROXY_USE_ETAG": "false", "IMGPROXY_USE_LAST_MODIFIED": "false"]))
        #expect(off.validation == AnswerValidation(etags: .none, lastModified: .none))
        for bad in [["IMGPROXY_LAST_MODIFIED_BUSTER": "yesterday"], ["IMGPROXY_ETAG_BUSTER": "a\"b"], ["IMGPROXY_USE_ETAG": "maybe"]] {
            var refused = ProxyConfiguration(cacheDirectory: FileManager.default.temporaryDirectory)
            #expect(throws: ProxyConfigurationError.self) { try refused.read(Self.settings(bad)) }
        }
    }

    static func settings(_ values: [String: String]) -> ConfigReader {
        ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: values))
    }
}
