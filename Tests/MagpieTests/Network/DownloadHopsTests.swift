import Foundation
import NIOHTTP1
import Testing

@testable import Magpie

/// The rules of one download's requests, without a network: redirects, credentials across
/// origins, revalidation and resuming.
@Suite("A download's hops")
struct DownloadHopsTests {
    static let origin = URL(string: "https://images.example/a/photo.jpg")!
    static let part = PartialBody(bytes: [1, 2, 3, 4], validator: .etag("\"v1\""), total: 10)

    static func head(_ status: Int, _ fields: [(String, String)] = []) -> HTTPResponseHead {
        HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: HTTPHeaders(fields))
    }

    static func hops(
        headers: [String: String] = [:], cached: HTTPMetadata? = nil, resuming: PartialBody? = nil, maximumRedirects: Int = 3,
        following: Bool = true
    ) -> DownloadHops {
        DownloadHops(
            outgoing: OutgoingRequest(url: origin, headers: headers), revalidating: cached, resuming: resuming,
            maximumRedirects: maximumRedirects, followsRedirects: following)
    }

    @Test func aRedirectIsFollowedFromWhereItWasSaid() throws {
        var hops = Self.hops(headers: ["Authorization": "Bearer t", "Cookie": "c=1", "Accept": "image/*"])
        #expect(try hops.next(after: Self.head(302, [("Location", "../b/photo.jpg")])) == .sendAgain)
        #expect(hops.url.absoluteString == "https://images.example/b/photo.jpg")
        #expect(hops.headers["Authorization"] == "Bearer t", "the same origin keeps its credentials")
        #expect(try hops.next(after: Self.head(301, [("Location", "https://cdn.example/c.jpg")])) == .sendAgain)
        #expect(hops.url.absoluteString == "https://cdn.example/c.jpg")
        #expect(hops.headers == ["Accept": "image/*"], "another origin gets no credentials")
        #expect(try hops.next(after: Self.head(200)) == .read(abandoned: nil))
        #expect(hops.redirects.map(\.absoluteString) == ["https://images.example/b/photo.jpg", "https://cdn.example/c.jpg"])
        #expect(hops.originalURL == Self.origin)
    }

    @Test func anotherPortOrSchemeIsAnotherOrigin() throws {
        for location in ["https://images.example:8443/a.jpg", "http://images.example/a.jpg"] {
            var hops = Self.hops(headers: ["Cookie": "c=1"])
            _ = try hops.next(after: Self.head(307, [("Location", location)]))
            #expect(hops.headers["Cookie"] == nil, "\(location)")
        }
        var hops = Self.hops(headers: ["Cookie": "c=1"])
        _ = try hops.next(after: Self.head(308, [("Location", "https://IMAGES.example:443/z.jpg")]))
        #expect(hops.headers["Cookie"] == "c=1", "the default port and the host's case are the same origin")
    }

    @Test func redirectsPastTheLimitFailNamingTheFirstURL() throws {
        var hops = Self.hops(maximumRedirects: 2)
        for _ in 0..<2 { #expect(try hops.next(after: Self.head(302, [("Location", "/again")])) == .sendAgain) }
        #expect(throws: MagpieError.tooManyRedirects(Self.origin)) { try hops.next(after: Self.head(302, [("Location", "/again")])) }
    }

    @Test func aLocationThatIsNoURLIsTheOriginsFault() throws {
        var hops = Self.hops()
        do {
            _ = try hops.next(after: Self.head(302, [("Location", "http://[::1")]))
            Issue.record("followed a location that is no URL")
        } catch {
            guard case .network(let failure) = error else { Issue.record("\(error)"); return }
            #expect(failure.reason == .other && failure.description.contains("which is not a URL"))
        }
    }

    @Test func aRedirectWithoutLocationOrFromAnEndpointIsTheAnswer() throws {
        var plain = Self.hops()
        #expect(try plain.next(after: Self.head(302)) == .read(abandoned: nil))
        var endpoint = Self.hops(following: false)
        #expect(try endpoint.next(after: Self.head(302, [("Location", "/elsewhere")])) == .read(abandoned: nil))
        #expect(endpoint.redirects.isEmpty)
    }

    @Test func aRevalidationAsksWithTheCachedValidatorsAndDoesNotResume() {
        let cached = HTTPMetadata(etag: "\"v1\"", lastModified: "Tue, 17 Nov 2026 10:00:00 GMT")
        let hops = Self.hops(cached: cached, resuming: Self.part)
        #expect(hops.headers == ["If-None-Match": "\"v1\"", "If-Modified-Since": "Tue, 17 Nov 2026 10:00:00 GMT"])
        #expect(hops.resuming == nil)
    }

    @Test func aResumeAsksForTheRestAndReadsWhatContinuesIt() throws {
        var hops = Self.hops(resuming: Self.part)
        #expect(hops.headers == ["Range": "bytes=4-", "If-Range": "\"v1\""])
        #expect(try hops.next(after: Self.head(206, [("Content-Range", "bytes 4-9/10"), ("ETag", "\"v1\"")])) == .read(abandoned: nil))
        #expect(hops.resuming?.bytes == Self.part.bytes)
    }

    @Test func aWholeBodyEndsTheResume() throws {
        var hops = Self.hops(resuming: Self.part)
        #expect(try hops.next(after: Self.head(200)) == .read(abandoned: nil))
        #expect(hops.resuming == nil)
    }

    @Test func aRangeThatDoesNotContinueThePartIsAskedAgainWhole() throws {
        for head in [Self.head(206, [("Content-Range", "bytes 0-9/10")]), Self.head(416)] {
            var hops = Self.hops(resuming: Self.part)
            #expect(try hops.next(after: head) == .sendAgain)
            #expect(hops.resuming == nil && hops.headers["Range"] == nil && hops.headers["If-Range"] == nil)
            #expect(try hops.next(after: Self.head(200)) == .read(abandoned: nil))
        }
    }

    @Test func aFailureNotAboutTheRangeLeavesThePartForALaterTry() throws {
        var hops = Self.hops(resuming: Self.part)
        #expect(try hops.next(after: Self.head(503)) == .read(abandoned: Self.part))
        #expect(hops.resuming == nil)
    }
}
