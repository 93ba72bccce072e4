import Foundation
import Magpie
@testable import MagpieServer
import MagpieTesting
import Testing

/// The proxy over HTTP on loopback, fetching from a loopback origin: answers, formats,
/// caching headers, signing and limits.
@Suite("Proxy serving")
struct ProxyServingTests {
    static let photo: [UInt8] = (try? TestImages.texture(width: 800, height: 600, format: .jpeg)) ?? []
    static let transparent: [UInt8] = {
        var image = TestImages.pixels(width: 300, height: 200)
        let rounded = (try? ImageProcessors.RoundedCorners(radius: 40).process(image)) ?? image
        image = rounded
        return (try? ImageEncoder().encode(image, as: .png)) ?? []
    }()

    @Test func thumbnailWithCachingHeaders() async throws {
        try await withProxyFixture { fixture in
            var route = ServedRoute.image(Self.photo, contentType: "image/jpeg")
            route.lastModified = "Tue, 17 Nov 2026 10:00:00 GMT"
            route.etag = "\"v1\""
            fixture.origin.serve("/a.jpg", route)
            let reply = try await fixture.get(fixture.path("/a.jpg", "s:256:256/fit:fill"))
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "image/jpeg")
            let image = try VipsDecoder().decode(reply.body, thumbnail: nil, maximumPixels: 1 << 30)
            #expect(image.width == 256 && image.height == 256)
            #expect(reply.header("Cache-Control") == "public, max-age=86400, stale-while-revalidate=3600")
            #expect(reply.header("Last-Modified") == "Tue, 17 Nov 2026 10:00:00 GMT")
            #expect(reply.header("Cache-Tag") == ImageProxy.cacheTag(for: fixture.origin.url("/a.jpg")))
            #expect(reply.header("Surrogate-Key") == reply.header("Cache-Tag"))
            #expect(reply.header("Vary") == nil)
            let etag = try #require(reply.header("ETag"))
            #expect(etag.hasPrefix("\"") && etag.count == 24)
            let timing = try #require(reply.header("Server-Timing"))
            for stage in ["download;dur=", "decode;dur=", "encode;dur=", "total;dur="] { #expect(timing.contains(stage), "\(timing)") }
            #expect(reply.header("X-Request-Id")?.count == 16)

            // The same URL again: from the result cache, with the same validator, no new fetch.
            let again = try await fixture.get(fixture.path("/a.jpg", "s:256:256/fit:fill"))
            #expect(again.body == reply.body && again.header("ETag") == etag)
            #expect(again.header("Server-Timing")?.hasPrefix("cache;desc=memory") == true)
            #expect(fixture.origin.statistics(for: "/a.jpg").requests == 1)
        }
    }

    @Test func ifNoneMatchIsAnsweredWithoutFetchingOrDecoding() async throws {
        let decoder = GatedDecoder()
        decoder.open()
        try await withProxyFixture(configure: { $0.pipeline.decoder = decoder }) { fixture in
            var route = ServedRoute.image(Self.photo)
            route.etag = "\"v1\""
            fixture.origin.serve("/a.jpg", route)
            let path = fixture.path("/a.jpg", "s:128")
            let first = try await fixture.get(path)
            let etag = try #require(first.header("ETag"))
            let cached = try await fixture.get(path, headers: ["If-None-Match": "\"other\", W/\(etag)"])
            #expect(cached.status == 304 && cached.body.isEmpty)
            #expect(cached.header("ETag") == etag)
            #expect(fixture.origin.statistics(for: "/a.jpg").requests == 1)
            #expect(decoder.callCount == 1)
            // Another size of the same source version: its own ETag, so a stale one is a 200.
            let other = try await fixture.get(fixture.path("/a.jpg", "s:64"), headers: ["If-None-Match": etag])
            #expect(other.status == 200 && other.header("ETag") != etag)
        }
    }

    /// A URL read once is not read again (its reading is kept by path and Accept), but what
    /// depends on time is: an expiring URL is refused once it has expired, though it was
    /// answered (and its result is in memory) before.
    @Test func readingsAreKeptOnlyWhereTheyHoldForGood() async throws {
        let clock = ManualClock()
        try await withProxyFixture(configure: { $0.pipeline.wallClock = clock.wall }) { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let expiry = Int(clock.wall().timeIntervalSince1970) + 60
            let expiring = fixture.path("/a.jpg", "s:100/exp:\(expiry)")
            #expect(try await fixture.get(expiring).status == 200)
            #expect(try await fixture.get(expiring).status == 200)
            clock.advance(by: .seconds(61))
            let late = try await fixture.get(expiring)
            #expect(late.status == 404, "\(late.text)")
            let plain = fixture.path("/a.jpg", "s:100")
            let first = try await fixture.get(plain)
            let kept = fixture.proxy.readURLs.count
            #expect(try await fixture.get(plain).body == first.body)
            #expect(fixture.proxy.readURLs.count == kept && kept >= 1)
            // Another Accept is another reading: its own negotiation.
            let webp = try await fixture.get(fixture.path("/a.jpg", "s:100/f:auto"), headers: ["Accept": "image/webp"])
            let jpeg = try await fixture.get(fixture.path("/a.jpg", "s:100/f:auto"), headers: ["Accept": "image/jpeg"])
            #expect(webp.header("Content-Type") == "image/webp" && jpeg.header("Content-Type") == "image/jpeg")
        }
        // Bounded by count, the oldest let go.
        let readings = ReadURLs(capacity: 3)
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            _ = try await fixture.get(fixture.path("/a.jpg", "s:100"))
            guard case .needsWork(let work) = fixture.proxy.prepare(ProxyRequest(path: fixture.path("/a.jpg", "s:90"))) else {
                Issue.record("a new URL was answered without work")
                return
            }
            for index in 0..<10 { readings.keep(work, for: "/\(index)") }
            #expect(readings.count == 3 && readings.work(for: "/9") != nil && readings.work(for: "/0") == nil)
        }
    }

    /// The validator comes from the source: a changed source (new ETag) is a new ETag here.
    @Test func newSourceVersionMeansNewETag() async throws {
        try await withProxyFixture { fixture in
            var route = ServedRoute.image(Self.photo)
            route.etag = "\"v1\""
            fixture.origin.serve("/a.jpg", route)
            fixture.origin.serve("/b.jpg", { var changed = route; changed.etag = "\"v2\""; return changed }())
            let a = try await fixture.get(fixture.path("/a.jpg", "s:100"))
            let b = try await fixture.get(fixture.path("/b.jpg", "s:100"))
            #expect(a.header("ETag") != b.header("ETag"))
        }
    }

    @Test func automaticFormatFollowsAcceptAndVaries() async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            fixture.origin.serve("/t.png", .image(Self.transparent))
            let photo = fixture.path("/a.jpg", "s:200/f:auto")
            let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
            let avif = try await fixture.get(photo, headers: ["Accept": chrome])
            #expect(avif.header("Content-Type") == "image/avif")
            #expect(avif.header("Vary") == "Accept")
            #expect(Array(avif.body[4..<12]) == Array("ftypavif".utf8))
            // Another browser accepting the same formats shares the result.
            let firefox = try await fixture.get(photo, headers: ["Accept": "image/avif,image/webp,*/*"])
            #expect(firefox.header("Server-Timing")?.hasPrefix("cache;desc=memory") == true)
            let webp = try await fixture.get(photo, headers: ["Accept": "image/webp,*/*"])
            #expect(webp.header("Content-Type") == "image/webp")
            let plain = try await fixture.get(photo, headers: ["Accept": "*/*"])
            #expect(plain.header("Content-Type") == "image/jpeg")
            #expect(plain.header("Vary") == "Accept")
            let png = try await fixture.get(fixture.path("/t.png", "s:200/f:auto"), headers: ["Accept": "*/*"])
            #expect(png.header("Content-Type") == "image/png")
            let pngDecoded = try VipsDecoder().decode(png.body, thumbnail: nil, maximumPixels: 1 << 30)
            #expect(!pngDecoded.isOpaque)
            #expect(try await fixture.metric("magpie_proxy_responses_by_format_total{format=\"avif\"}") == 2)
            #expect(try await fixture.metric("magpie_proxy_responses_by_format_total{format=\"webp\"}") == 1)
        }
    }

    @Test func animationsStayAnimatedWhereTheFormatAllows() async throws {
        let gif = try ImageEncoder().encode(TestImages.animation(width: 120, height: 90, frames: 6), as: .gif)
        try await withProxyFixture { fixture in
            fixture.origin.serve("/clip.gif", .image(gif))
            let webp = try await fixture.get(fixture.path("/clip.gif", "s:60/f:auto"), headers: ["Accept": "image/avif,image/webp"])
            #expect(webp.header("Content-Type") == "image/webp")
            let decoded = try VipsDecoder().decode(webp.body, options: DecodingOptions(decodesAllFrames: true))
            #expect(decoded.frameCount == 6 && decoded.width == 60)
            let still = try await fixture.get(fixture.path("/clip.gif", "s:60/ff:1/f:auto"), headers: ["Accept": "image/webp"])
            let first = try VipsDecoder().decode(still.body, options: DecodingOptions(decodesAllFrames: true))
            #expect(first.frameCount == 1)
            let kept = try await fixture.get(fixture.path("/clip.gif", "s:60"))
            #expect(kept.header("Content-Type") == "image/gif")
        }
    }

    @Test func gravityAndSmartCropKeepTheirSide() async throws {
        // Left half black, right half white: a west crop is dark, an east crop light.
        var pixels = [UInt8](repeating: 255, count: 400 * 100 * 4)
        for y in 0..<100 { for x in 0..<200 { for c in 0..<3 { pixels[(y * 400 + x) * 4 + c] = 0 } } }
        let halves = try ImageEncoder().encode(DecodedImage(width: 400, height: 100, pixels: pixels), as: .png)
        try await withProxyFixture { fixture in
            fixture.origin.serve("/halves.png", .image(halves))
            for (gravity, expectDark) in [("we", true), ("ea", false)] {
                let reply = try await fixture.get(fixture.path("/halves.png", "s:50:50/fit:fill/g:\(gravity)"))
                let image = try VipsDecoder().decode(reply.body, thumbnail: nil, maximumPixels: 1 << 30)
                #expect(image.width == 50 && image.height == 50)
                let mean = image.pixels.enumerated().filter { $0.offset % 4 == 0 }.map { Int($0.element) }.reduce(0, +) / 2500
                #expect(expectDark ? mean < 20 : mean > 235, "g:\(gravity) mean \(mean)")
            }
            let crop = try await fixture.get(fixture.path("/halves.png", "s:100:40/fit:crop/g:ea"))
            let cropped = try VipsDecoder().decode(crop.body, thumbnail: nil, maximumPixels: 1 << 30)
            #expect(cropped.width == 100 && cropped.height == 40)
        }
    }

    @Test func signingIsEnforced() async throws {
        try await withProxyFixture(configure: { configuration in
            let old = try SigningKey(keyHex: "0011", saltHex: "2233")
            configuration.signingKeys.append(old)
        }) { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let signed = fixture.path("/a.jpg", "s:64")
            #expect(try await fixture.get(signed).status == 200)
            let part = String(signed.drop { $0 == "/" }.drop { $0 != "/" })
            let oldKey = URLSigner(keys: [try SigningKey(keyHex: "0011", saltHex: "2233")])
            #expect(try await fixture.get(oldKey.sign(part)).status == 200)
            let tampered = signed.replacingOccurrences(of: "s:64", with: "s:65")
            let forbidden = try await fixture.get(tampered)
            #expect(forbidden.status == 403 && forbidden.text == "the signature does not match the URL\n")
            let unsigned = try await fixture.get("/unsafe" + part)
            #expect(unsigned.status == 403 && unsigned.text == "unsigned URLs are not accepted here\n")
            // A fault of the URL, not of its source: no cache keeps it.
            #expect(forbidden.header("Cache-Control") == "no-store")
            #expect(fixture.origin.statistics(for: "/a.jpg").requests == 1)
        }
    }

    /// imgproxy answers a URL it cannot read 404 ("Invalid URL"), and so do its URLs here.
    @Test func malformedURLIs404WithTheReason() async throws {
        try await withProxyFixture(configure: { $0.allowsUnsignedURLs = true }) { fixture in
            let reply = try await fixture.get("/unsafe/q:101/plain/http%3A%2F%2F127.0.0.1%2Fa.jpg")
            #expect(reply.status == 404)
            #expect(reply.text == "option 'q:101': '101' is not a whole number from 0 to 100\n")
        }
    }

    @Test func allowListRefusesOtherHosts() async throws {
        try await withProxyFixture(configure: { $0.sources = SourcePolicy(allowedHosts: ["images.example.com"]) }) { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let reply = try await fixture.get(fixture.path("/a.jpg", "s:64"))
            let source = fixture.origin.url("/a.jpg").absoluteString
            #expect(reply.status == 404 && reply.text == "The host '127.0.0.1' of \(source) is not on the list of allowed source hosts.\n", "\(reply.text)")
            #expect(fixture.origin.statistics(for: "/a.jpg").requests == 0)
        }
    }

    /// An allowed source with an open redirect cannot hand the proxy to a host off the list:
    /// 404 (imgproxy's status for a source it does not allow) naming the host and the hop, and the
    /// off-list host never sees a request.
    @Test func allowListHoldsOnEveryRedirect() async throws {
        let offList = try await ImageServer.start(address: "127.0.0.2")
        offList.serve("/a.jpg", .image(Self.photo))
        try await withProxyFixture(configure: { $0.sources = SourcePolicy(allowedHosts: ["127.0.0.1"]) }) { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            fixture.origin.serve("/open", .redirect(to: "/next"))
            fixture.origin.serve("/next", .redirect(to: "//127.0.0.2:\(offList.port)/a.jpg", status: 301))
            fixture.origin.serve("/home", .redirect(to: "/a.jpg", status: 307))
            let reply = try await fixture.get(fixture.path("/open", "s:64"))
            #expect(reply.status == 404)
            let source = fixture.origin.url("/open").absoluteString
            #expect(reply.text == "Redirect 2 of \(source) leads to the host '127.0.0.2', which is not on the list of allowed source hosts.\n", "\(reply.text)")
            #expect(try await fixture.get(fixture.path("/home", "s:64")).status == 200)
        }
        #expect(offList.totalRequests == 0, "\(offList.requestLog)")
        await offList.shutdown()
    }

    @Test func internalAddressesAreRefusedUnlessAllowed() async throws {
        try await withProxyFixture(configure: { $0.pipeline.addressPolicy = .publicOnly }) { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let reply = try await fixture.get(fixture.path("/a.jpg", "s:64"))
            #expect(reply.status == 404)
            #expect(reply.text.contains("127.0.0.1 is a loopback address, which the address policy refuses"), "\(reply.text)")
            #expect(fixture.origin.statistics(for: "/a.jpg").requests == 0)
        }
        // Loopback allowed: a redirect to the metadata service or a private network is still refused.
        try await withProxyFixture { fixture in
            fixture.origin.serve("/hop", .redirect(to: "http://169.254.169.254/latest/meta-data/"))
            fixture.origin.serve("/hop6", .redirect(to: "http://[::ffff:10.1.1.1]/a.jpg"))
            for hop in ["/hop", "/hop6"] {
                let reply = try await fixture.get(fixture.path(hop, "s:64"))
                #expect(reply.status == 404, "\(hop): \(reply.text)")
            }
        }
    }

    @Test func ipv6LoopbackOriginWithTheLoopbackSwitch() async throws {
        let origin6 = try await ImageServer.start(address: "::1")
        origin6.serve("/a.jpg", .image(Self.photo))
        try await withProxyFixture { fixture in
            let reply = try await fixture.get(fixture.proxy.path(for: origin6.url("/a.jpg"), options: "s:64"))
            #expect(reply.status == 200)
        }
        try await withProxyFixture(configure: { $0.pipeline.addressPolicy = .publicOnly }) { fixture in
            let reply = try await fixture.get(fixture.proxy.path(for: origin6.url("/a.jpg"), options: "s:64"))
            #expect(reply.status == 404 && reply.text.contains("::1 is a loopback address"), "\(reply.text)")
        }
        await origin6.shutdown()
    }

    @Test func sourcesOverTheLimitsAreRefused() async throws {
        let big = try TestImages.texture(width: 2000, height: 1500, format: .jpeg)
        let animation = try ImageEncoder().encode(TestImages.animation(width: 200, height: 200, frames: 30), as: .gif)
        try await withProxyFixture(configure: { $0.pipeline.maximumResponseBytes = big.count - 1 }) { fixture in
            fixture.origin.serve("/big.jpg", .image(big))
            let tooManyBytes = try await fixture.get(fixture.path("/big.jpg", "s:64"))
            #expect(tooManyBytes.status == 422 && tooManyBytes.text.contains("larger than the limit of \(big.count - 1) bytes"), "\(tooManyBytes.text)")
        }
        try await withProxyFixture(configure: { configuration in
            configuration.pipeline.maximumPixels = 2_000_000
            configuration.pipeline.maximumAnimationPixels = 1_000_000
        }) { fixture in
            fixture.origin.serve("/big.jpg", .image(big))
            fixture.origin.serve("/clip.gif", .image(animation))
            let tooManyPixels = try await fixture.get(fixture.path("/big.jpg", "s:64"))
            #expect(tooManyPixels.status == 422 && tooManyPixels.text.contains("2000"), "\(tooManyPixels.text)")
            let tooLong = try await fixture.get(fixture.path("/clip.gif", "s:64"))
            #expect(tooLong.status == 422 && tooLong.text.contains("30 frames"), "\(tooLong.text)")
            let firstFrame = try await fixture.get(fixture.path("/clip.gif", "s:64/ff:1"))
            #expect(firstFrame.status == 200, "\(firstFrame.text)")
            fixture.origin.serve("/wide.svg", .image(Array("<svg xmlns='http://www.w3.org/2000/svg' width='4000' height='1000'/>".utf8)))
            let vector = try await fixture.get(fixture.path("/wide.svg", "s:64/f:png"))
            #expect(vector.status == 422 && vector.text.contains("4000x1000"), "an SVG's declared size is held to the limit: \(vector.text)")
            // SVG is written only as the source passed through, as imgproxy answers `@svg`.
            let kept = try await fixture.get(fixture.path("/wide.svg", "s:64/f:svg"))
            #expect(kept.status == 200 && kept.header("Content-Type") == "image/svg+xml", "\(kept.text)")
            let raster = try await fixture.get(fixture.path("/big.jpg", "s:64/f:svg"))
            #expect(raster.status == 422 && raster.text.contains("SVG"), "\(raster.text)")
            let huge = try await fixture.get(fixture.path("/big.jpg", "s:9000:10"))
            #expect(huge.status == 404)
        }
    }

    @Test func originErrorsMapToStatusesCachedBriefly() async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/gone.jpg", .status(404))
            fixture.origin.serve("/broken.jpg", .status(500))
            let missing = try await fixture.get(fixture.path("/gone.jpg", "s:64"))
            #expect(missing.status == 404 && missing.header("Cache-Control") == "public, max-age=10")
            let broken = try await fixture.get(fixture.path("/broken.jpg", "s:64"))
            #expect(broken.status == 502)
        }
    }
}
