import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// Issue 32: what an attacker holding a signing key (or an app that signs URLs for user images)
/// sends, answered without serving anything active, without work before admission, and
/// without sizes a URL can choose. The same URLs against a `magpie proxy` child process, with
/// its memory measured, are in `ProxyHardeningCommandTests`.
@Suite("Proxy hardening")
struct ProxyHardeningTests {
    static let photo = try! TestImages.texture(width: 320, height: 240, format: .jpeg)
    static let mark = try! TestImages.texture(width: 64, height: 64, format: .png, seed: 7)

    static func base64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

    // MARK: Nothing active

    /// `raw` and `skip_processing` serve only images Magpie knows by their bytes: an HTML page
    /// is a 422, whatever the origin calls it, and so is an SVG asking for entities; an image
    /// served as it is carries a policy that runs nothing, and every answer says `nosniff`.
    @Test func passThroughServesOnlyImagesAndNothingThatRuns() async throws {
        try await withProxyFixture { fixture in
            let page = Array("<!doctype html><html><body><script>alert(document.domain)</script></body></html>".utf8)
            let laughs = Array(#"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>"#.utf8)
            fixture.origin.serve("/page.html", .image(page, contentType: "text/html"))
            fixture.origin.serve("/laughs.svg", .image(laughs, contentType: "image/svg+xml"))
            fixture.origin.serve("/photo-as-html", .image(Self.photo, contentType: "text/html"))
            for (path, options) in [("/page.html", "raw:1"), ("/laughs.svg", "raw:1"), ("/page.html", "skp:jpg"), ("/laughs.svg", "skp:svg")] {
                let reply = try await fixture.get(fixture.path(path, options))
                #expect(reply.status == 422, "\(path) \(options): \(reply.status) \(reply.text)")
                #expect(reply.header("Content-Type") == "text/plain; charset=utf-8")
                #expect(reply.header("X-Content-Type-Options") == "nosniff")
                #expect(!reply.text.contains("<script"))
            }
            let raw = try await fixture.get(fixture.path("/photo-as-html", "raw:1"))
            #expect(raw.status == 200 && raw.body == Self.photo)
            #expect(raw.header("Content-Type") == "image/jpeg", "by the bytes, not the origin's text/html")
            #expect(raw.header("X-Content-Type-Options") == "nosniff")
            let policy = try #require(raw.header("Content-Security-Policy"))
            #expect(policy.contains("script-src 'none'") && policy.contains("sandbox") && policy.contains("default-src 'none'"))
            let processed = try await fixture.get(fixture.path("/photo-as-html", "s:64"))
            #expect(processed.status == 200 && processed.header("X-Content-Type-Options") == "nosniff")
            let refused = try await fixture.get("/unsafe/s:64/plain/x")
            #expect(refused.status == 403 && refused.header("X-Content-Type-Options") == "nosniff")
        }
    }

    /// An SVG passes through only sanitised, as imgproxy serves it: no script, handler,
    /// embedded document, outside reference or link-setting animation is left, what draws is.
    @Test func svgPassesThroughSanitised() async throws {
        let hostile = #"""
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment --><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="10" onload="alert(1)">
              <script type="text/javascript">alert(2)</script>
              <defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>
              <rect id="r" width="10" height="10" fill="url(#g)" onclick="alert(3)" style="stroke:blue"/>
              <rect width="5" height="5" style="fill:url(http://tracker.example/t.png)"/>
              <foreignObject width="10" height="10"><iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:alert(4)"></iframe></foreignObject>
              <a xlink:href="javascript:alert(5)"><text x="0" y="9">A &amp; B</text></a>
              <image href="http://tracker.example/pixel.png" width="1" height="1"/>
              <image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/>
              <use xlink:href="#r" x="10"/>
              <use href="http://elsewhere.example/sprite.svg#icon"/>
              <style>@import url(http://tracker.example/x.css); rect { fill: green }</style>
              <style><![CDATA[ text { font-weight: bold } ]]></style>
              <set attributeName="href" to="javascript:alert(6)"/>
              <animate attributeName="opacity" from="0" to="1" dur="1s"/>
            </svg>
            """#
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.svg", .image(Array(hostile.utf8), contentType: "image/svg+xml"))
            #expect(ImageFormat(sniffing: Array(hostile.utf8)) == .svg)
            for options in ["raw:1", "skp:svg"] {
                let reply = try await fixture.get(fixture.path("/a.svg", options))
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.header("Content-Type") == "image/svg+xml")
                #expect(reply.header("Content-Security-Policy")?.contains("script-src 'none'") == true)
                let text = reply.text.lowercased()
                for gone in ["script", "onload", "onclick", "javascript", "foreignobject", "iframe", "tracker.example", "elsewhere.example", "@import", "<set", "<!--", "doctype"] {
                    #expect(!text.contains(gone), "\(options): '\(gone)' is left in \(reply.text)")
                }
                // A style sheet that fetches anything is left out whole; one that does not stays.
                #expect(!text.contains("fill: green"))
                for kept in ["id=\"r\"", "fill=\"url(#g)\"", "style=\"stroke:blue\"", "a &amp; b", "xlink:href=\"#r\"", "data:image/png", "font-weight: bold", "<animate", "<lineargradient"] {
                    #expect(text.contains(kept.lowercased()), "\(options): '\(kept)' is missing from \(reply.text)")
                }
                // Well-formed XML, by a parser of its own.
                #expect(XMLParser(data: Data(reply.body)).parse())
            }
            // Asked for in a raster format, it is drawn (by librsvg, which follows no reference
            // out of the document); processed without one, it passes through sanitised, as
            // imgproxy passes it.
            let drawn = try await fixture.get(fixture.path("/a.svg", "s:64/f:png"))
            #expect(drawn.status == 200 && drawn.header("Content-Type") == "image/png", "\(drawn.status) \(drawn.text)")
            let kept = try await fixture.get(fixture.path("/a.svg", "s:64"))
            #expect(kept.header("Content-Type") == "image/svg+xml" && !kept.text.contains("<script"))
        }
        try await withProxyFixture(configure: { $0.alwaysRasterizesSVG = true }) { fixture in
            fixture.origin.serve("/a.svg", .image(Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"/>"#.utf8)))
            let drawn = try await fixture.get(fixture.path("/a.svg", "s:64"))
            #expect(drawn.status == 200 && drawn.header("Content-Type") == "image/png", "IMGPROXY_ALWAYS_RASTERIZE_SVG: \(drawn.text)")
        }
    }

    // MARK: One admission

    /// A request's mark is fetched and decoded only once the request is admitted: while the
    /// only slot is held, a queued request with a mark of its own has not reached the mark's
    /// origin. Once in, the mark is fetched once for both requests that name it.
    @Test func marksAreFetchedOnlyAfterAdmission() async throws {
        let decoder = GatedDecoder()
        try await withProxyFixture(configure: { configuration in
            configuration.pipeline.decoder = decoder
            configuration.processingSlots = 1
        }) { fixture in
            fixture.origin.serve("/held.jpg", .image(Self.photo))
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            fixture.origin.serve("/b.jpg", .image(Self.photo))
            fixture.origin.serve("/mark.png", .image(Self.mark))
            let markOption = "wmu:" + Base64URL.encode(Array(fixture.origin.url("/mark.png").absoluteString.utf8))
            async let held = fixture.get(fixture.path("/held.jpg", "s:100"))
            try await waitUntil { decoder.callCount == 1 }
            async let first = fixture.get(fixture.path("/a.jpg", "s:100/wm:1:ce/" + markOption))
            async let second = fixture.get(fixture.path("/b.jpg", "s:100/wm:0.5:ce/" + markOption))
            try await waitUntil { fixture.proxy.processingUsage.queued == 2 }
            #expect(fixture.origin.statistics(for: "/mark.png").requests == 0)
            #expect(fixture.origin.statistics(for: "/a.jpg").requests == 0)
            decoder.open()
            #expect(try await held.status == 200)
            #expect(try await first.status == 200)
            #expect(try await second.status == 200)
            #expect(fixture.origin.statistics(for: "/mark.png").requests == 1)
        }
    }

    /// A text mark is drawn once for every result that lays it, and a fetched one decoded once.
    @Test func marksAreKeptByWhatTheyAre() async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/mark.png", .image(Self.mark))
            let text = "wmt:" + Self.base64(#"<span foreground="white">© Magpie</span>"#)
            let url = "wmu:" + Base64URL.encode(Array(fixture.origin.url("/mark.png").absoluteString.utf8))
            for index in 0..<3 {
                fixture.origin.serve("/\(index).jpg", .image(Self.photo))
                let withText = try await fixture.get(fixture.path("/\(index).jpg", "s:100/wm:1:soea/" + text))
                let withImage = try await fixture.get(fixture.path("/\(index).jpg", "s:100/wm:1:nowe/" + url))
                #expect(withText.status == 200 && withImage.status == 200)
            }
            #expect(fixture.proxy.keptMarkCount == 2)
            #expect(fixture.origin.statistics(for: "/mark.png").requests == 1)
        }
    }

    /// `/info` (and thumbor's `meta/`) take a processing slot like an image: with the only
    /// slot held and no queue, they are turned away with 503 rather than decoding beside it.
    @Test func infoAndMetaAreAdmittedLikeImages() async throws {
        let decoder = GatedDecoder()
        try await withProxyFixture(configure: { configuration in
            configuration.pipeline.decoder = decoder
            configuration.processingSlots = 1
            configuration.queueLimit = 0
            configuration.allowsUnsignedURLs = true
        }) { fixture in
            fixture.origin.serve("/held.jpg", .image(Self.photo))
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            async let held = fixture.get(fixture.path("/held.jpg", "s:100"))
            try await waitUntil { decoder.callCount == 1 }
            let source = fixture.origin.url("/a.jpg").absoluteString
            let info = try await fixture.get("/info/unsafe/bh:4:3/plain/" + source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect(info.status == 503, "\(info.text)")
            let meta = try await fixture.get("/unsafe/meta/100x100/" + source)
            #expect(meta.status == 503, "\(meta.text)")
            #expect(fixture.origin.statistics(for: "/a.jpg").requests == 0)
            decoder.open()
            #expect(try await held.status == 200)
            let answered = try await fixture.get("/info/unsafe/bh:4:3/plain/" + source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect(answered.status == 200 && answered.text.contains("\"blurhash\""), "\(answered.text)")
        }
    }

    // MARK: Sizes bounded where they are computed

    /// Pango markup that asks for more than a mark may be, or that cannot be drawn, is refused
    /// naming what is wrong, before anything is fetched (so nothing is decoded or drawn), and
    /// kept by no cache. No clock here: a loaded machine made a 5-second bound fail in CI while
    /// the refusal itself never reached the origin.
    @Test(arguments: [
        (#"<span font="16000">W</span>"#, "font size of 16000 pixels; at most 1000"),
        (#"<span font="20000">W</span>"#, "font size of 20000 pixels; at most 1000"),
        (#"<span size="999999999999">W</span>"#, "is not a size of at most 1000 points"),
        (#"<span font_size="200000pt">W</span>"#, "is not a size of at most 1000 points"),
        (String(repeating: "<big>", count: 20) + "W" + String(repeating: "</big>", count: 20), "nested more than 16 deep"),
        // The issue's 300 nested <b> (2,101 bytes) is refused for its length first.
        (String(repeating: "<b>", count: 300) + "W" + String(repeating: "</b>", count: 300), "1 to 1024 bytes"),
        (String(repeating: "<b>", count: 100) + "W" + String(repeating: "</b>", count: 100), "nested more than 16 deep"),
        (#"<span foo="bar">W</span>"#, "the span attribute 'foo' is not drawn by Magpie"),
        ("&#0;", "&#0; is not a character that can be drawn"),
        (#"<span font="Sans &#49;6000">W</span>"#, "the value of 'font' holds an entity"),
        (#"<span foreground="x>" size="999999999999">W</span>"#, "is never closed"),
        (#"<span font="900">"# + String(repeating: "W", count: 40) + "</span>", "the text would cover about"),
        ("<b>W", "<b> is never closed"),
    ])
    func textMarksAskingTooMuchAreRefused(markup: String, reason: String) async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let reply = try await fixture.get(fixture.path("/a.jpg", "s:100/wm:1:ce/wmt:" + Self.base64(markup)))
            // imgproxy answers an option it cannot read 404.
            #expect(reply.status == 404, "\(reply.text)")
            #expect(reply.text.contains(reason), "\(reply.text)")
            #expect(reply.header("Cache-Control") == "no-store")
            #expect(fixture.origin.statistics(for: "/a.jpg").requests == 0, "refused before anything is fetched")
            #expect(fixture.proxy.keptMarkCount == 0)
        }
    }

    /// Markup that reads well but that Pango cannot draw (a colour it does not know) is a 400
    /// that says why, not a 500, and is not kept.
    @Test func undrawableMarkupIsTheURLsFault() async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let reply = try await fixture.get(fixture.path("/a.jpg", "s:100/wm:1:ce/wmt:" + Self.base64(#"<span foreground="no-such-colour">W</span>"#)))
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.text.hasPrefix("the watermark's text cannot be drawn"), "\(reply.text)")
            #expect(reply.header("Cache-Control") == "no-store")
            let drawn = try await fixture.get(fixture.path("/a.jpg", "s:100/wm:1:ce/wmt:" + Self.base64(#"<span foreground="white" size="20pt">© Magpie</span>"#)))
            #expect(drawn.status == 200)
        }
    }

    /// Tile spacing is bounded by the image it tiles: 12,000 px apart on a 320×240 result is
    /// the same picture as any spacing past the image (one mark, centred), made without a
    /// canvas of 12,064² pixels.
    @Test func tileSpacingIsBoundedByTheImage() async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            fixture.origin.serve("/mark.png", .image(Self.mark))
            let markOption = "wmu:" + Base64URL.encode(Array(fixture.origin.url("/mark.png").absoluteString.utf8))
            var pixels: [[UInt8]] = []
            // The first load lays the mark as fetched, later ones as kept (once from a JPEG
            // variant on disk, which blurred its edges): all four must agree.
            for spacing in ["250:250", "12000:12000", "100000:100000", "300:300"] {
                let reply = try await fixture.get(fixture.path("/a.jpg", "f:png/wm:1:re:\(spacing)/" + markOption))
                try #require(reply.status == 200, "\(reply.text)")
                let image = try VipsDecoder().decode(reply.body, options: DecodingOptions())
                #expect((image.width, image.height) == (320, 240))
                pixels.append(image.pixels)
            }
            #expect(pixels.allSatisfy { $0 == pixels[0] }, "past the image, the spacing changes nothing")
        }
    }

    /// The final canvas (box, enlargement, extension, padding, pixel ratio) is held to the
    /// output limits before it is allocated: 422 saying the size, kept by no cache.
    @Test(arguments: [
        ("pd:4096", "8512x8432"),
        ("w:8192/h:4882/el:1/ex:1/pd:1500", "11192x7882"),
        ("rs:fill:8000:5000:1/pd:0:100", "8200x5000"),
    ])
    func canvasesPastTheOutputLimitAreRefused(options: String, size: String) async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let reply = try await fixture.get(fixture.path("/a.jpg", options))
            #expect([400, 422].contains(reply.status), "\(options): \(reply.status) \(reply.text)")
            #expect(reply.text.contains(size), "\(options): \(reply.status) \(reply.text)")
            #expect(reply.header("Cache-Control") == "no-store")
        }
    }

    // MARK: Headers

    /// RFC 6266: a backslash or quote cannot leave the quoted name open, and a name that is
    /// not ASCII is also given as `filename*`.
    @Test(arguments: [
        ("report\\", #"inline; filename="report\\.jpg""#),
        (#"a"b"#, #"inline; filename="a%22b.jpg""#),
        ("été", #"inline; filename="été.jpg"; filename*=UTF-8''%C3%A9t%C3%A9.jpg"#),
        ("r\\\"; x=y", #"inline; filename="r\\%22; x=y.jpg""#),
    ])
    func contentDispositionQuotesTheName(name: String, header: String) async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", .image(Self.photo))
            let reply = try await fixture.get(fixture.path("/a.jpg", "s:64/f:jpg/fn:" + Base64URL.encode(Array(name.utf8)) + ":1"))
            #expect(reply.status == 200)
            #expect(reply.header("Content-Disposition") == header)
        }
    }

    // MARK: Sources

    /// imgproxy's prefixes with a port, a scheme and a path: what starts with one is allowed,
    /// the same host on another port or path, another scheme, or a userinfo trick is not.
    @Test func allowedSourcePrefixesMatchPortSchemeAndPath() async throws {
        let prefix = try #require(SourcePrefix("http://127.0.0.1:8080/photos/"))
        let policy = SourcePolicy(allowedPrefixes: [prefix])
        #expect(policy.allows(URL(string: "http://127.0.0.1:8080/photos/a.jpg")!))
        #expect(policy.allows(URL(string: "HTTP://127.0.0.1:8080/photos/deeper/a.jpg")!))
        #expect(!policy.allows(URL(string: "http://127.0.0.1:8080/other/a.jpg")!))
        #expect(!policy.allows(URL(string: "http://127.0.0.1:8081/photos/a.jpg")!))
        #expect(!policy.allows(URL(string: "https://127.0.0.1:8080/photos/a.jpg")!))
        #expect(!policy.allows(URL(string: "http://127.0.0.1:8080@127.0.0.2/photos/a.jpg")!))
        #expect(!policy.allows(URL(string: "http://127.0.0.1:8080/photos")!))
        #expect(SourcePolicy(allowedPrefixes: [SourcePrefix("http://example.com/")!]).allows(URL(string: "http://EXAMPLE.com:80/a.jpg")!))
        let wildcard = SourcePolicy(allowedPrefixes: [try #require(SourcePrefix("https://*.example.com/i*/"))])
        #expect(wildcard.allows(URL(string: "https://cdn.example.com/img/a.jpg")!))
        #expect(!wildcard.allows(URL(string: "https://example.com/img/a.jpg")!))
        #expect(!wildcard.allows(URL(string: "https://cdn.example.com/x/img/a.jpg")!))
        #expect(SourcePrefix("127.0.0.1:8080/") == nil && SourcePrefix("https:///photos/") == nil)
        let origin = try await ImageServer.start()
        defer { Task { await origin.shutdown() } }
        try await withProxyFixture(configure: { configuration in
            configuration.sources = SourcePolicy(allowedPrefixes: [SourcePrefix("http://127.0.0.1:\(origin.port)/photos/")!])
        }) { fixture in
            origin.serve("/photos/a.jpg", .image(Self.photo))
            origin.serve("/other/a.jpg", .image(Self.photo))
            origin.serve("/photos/away", .redirect(to: "/other/a.jpg"))
            let allowed = try await fixture.get(fixture.proxy.path(for: origin.url("/photos/a.jpg"), options: "s:64"))
            #expect(allowed.status == 200)
            let elsewhere = try await fixture.get(fixture.proxy.path(for: origin.url("/other/a.jpg"), options: "s:64"))
            #expect(elsewhere.status == 404)
            let redirected = try await fixture.get(fixture.proxy.path(for: origin.url("/photos/away"), options: "s:64"))
            #expect(redirected.status == 404, "the prefix holds on every redirect")
            #expect(origin.statistics(for: "/other/a.jpg").requests == 0)
            // The origin of the fixture is on another port.
            let otherPort = try await fixture.get(fixture.path("/photos/a.jpg", "s:64"))
            #expect(otherPort.status == 404)
        }
    }

    /// A redirect whose `Location` is not a URL is the origin's fault, not the URL's: answered
    /// as imgproxy answers a source it cannot reach (404), and kept only briefly.
    @Test func aRedirectToNoURLIsAnUnreachableSource() async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/broken", .redirect(to: "http://[::1"))
            let reply = try await fixture.get(fixture.path("/broken", "s:64"))
            #expect(reply.status == 404, "\(reply.text)")
            #expect(reply.header("Cache-Control") == "public, max-age=10", "\(reply.header("Cache-Control") ?? "")")
            #expect(reply.text.contains("which is not a URL"), "\(reply.text)")
        }
    }
}
