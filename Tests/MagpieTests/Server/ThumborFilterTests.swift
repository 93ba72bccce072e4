import Foundation
import Configuration
import Logging
import Magpie
import MagpieTesting
import Testing

@testable import MagpieServer
@testable import MagpieCLI

/// thumbor's filters as thumbor reads them: what it skips (unknown filters, arguments that do not
/// match their forms, values its filter ignores) is skipped and said, never a 400; what it
/// applies becomes the same processors and settings.
@Suite("thumbor filters")
struct ThumborFilterTests {
    static func reading(_ filters: String, size: String = "300x200", image: String = "example.com/a.jpg") throws -> ThumborReading {
        try ThumborReading(try ThumborPath("/unsafe/\(size)/filters:\(filters)/\(image)"), limits: ProcessingLimits())
    }

    static let skippedAsThumborSkipsThem: [(filters: String, said: String)] = [
        ("redeye()", "redeye: needs an eye detector"),
        ("gifv()", "gifv: needs thumbor's gifv engine"),
        ("no_such_filter(1)", "no_such_filter: not a thumbor filter"),
        ("proportion(10000)", "proportion(10000): thumbor applies a proportion above 0 and at most 1"),
        ("proportion(0)", "proportion(0):"),
        ("rotate(91)", "rotate(91): thumbor turns only by multiples of 90 degrees"),
        ("focal()", "focal(): thumbor reads focal(LEFTxTOP:RIGHTxBOTTOM)"),
        ("focal(10x10:10x20)", "the rectangle is empty"),
        ("format(invalid)", "format(invalid): not a format thumbor writes"),
        ("blur(4.5)", "blur(4.5): '4.5' is not a whole number"),
        ("blur(0)", "blur(0): '0' is not a whole number from 1"),
        ("sharpen(2,1)", "sharpen(2,1): thumbor reads sharpen(AMOUNT,RADIUS,LUMINANCE_ONLY)"),
        ("no_upscale(1)", "no_upscale(1):"),
        ("brightness(ten)", "brightness(ten): 'ten' is not a whole number"),
        ("quality(-5)", "quality(-5): '-5' is not a whole number from 0"),
        ("watermark(example.com/w.png,nowhere,0,50)", "X and Y are pixels"),
    ]

    @Test(arguments: skippedAsThumborSkipsThem)
    func whatThumborSkipsIsSkippedAndSaid(_ item: (filters: String, said: String)) throws {
        let reading = try Self.reading(item.filters)
        #expect(reading.skipped.count == 1 && reading.skipped[0].contains(item.said), "\(reading.skipped)")
        #expect(reading.options.filters.isEmpty && reading.options.turn == 0 && reading.options.format == nil)
        #expect(reading.options.layout.zoomX == 1 && reading.options.watermark == nil)
    }

    /// A skipped filter leaves the others: `format(invalid)` undoes an earlier `format(webp)`,
    /// as thumbor's request format becomes None.
    @Test func skippingOneFilterKeepsTheOthers() throws {
        let reading = try Self.reading("blur(2):redeye():quality(80)")
        #expect(reading.options.filters.identifiers == [ImageProcessors.GaussianBlur(sigma: 2).identifier])
        #expect(reading.options.quality == 80 && reading.skipped.count == 1)
        #expect(try Self.reading("format(webp):format(invalid)").options.format == nil)
        #expect(try Self.reading("format(jpg)").options.format == .fixed(.jpeg))
        #expect(try Self.reading("format(heif)").options.format == .fixed(.heif))
    }

    @Test func appliedFiltersBecomeProcessorsAndSettings() throws {
        // thumbor clamps the kernel's reach, not the sigma: Magpie's sigma limit bounds the work and is said.
        let blur = try Self.reading("blur(500)")
        #expect(blur.options.filters.identifiers == [ImageProcessors.GaussianBlur(sigma: 100).identifier])
        #expect(blur.skipped == ["blur(500): sigma 500.0 applied as 100.0, Magpie's limit"])
        #expect(try Self.reading("blur(4,2)").options.filters.identifiers == [ImageProcessors.GaussianBlur(sigma: 2).identifier])
        // Counter-clockwise in thumbor; each turn adds to the last.
        #expect(try Self.reading("rotate(90)").options.turn == 270)
        #expect(try Self.reading("rotate(-90)").options.turn == 90)
        #expect(try Self.reading("rotate(90):rotate(90)").options.turn == 180)
        #expect(try Self.reading("rotate(360)").options.turn == 0)
        #expect(try Self.reading("max_age(60)").options.maxAge == 60)
        #expect(try Self.reading("max_age(99999999999)").options.maxAge == ThumborFilters.maximumAge)
        #expect(try Self.reading("stretch()").options.layout.resizing == .force)
        #expect(try Self.reading("upscale()", size: "fit-in/300x200").options.layout.enlarge)
        #expect(try Self.reading("proportion(0.5)").options.layout.zoomX == 0.5)
        #expect(try Self.reading("brightness(40)").options.filters.identifiers == [ImageProcessors.Adjust(brightness: 102).identifier])
        #expect(try Self.reading("brightness(400)").options.filters.identifiers == [ImageProcessors.Adjust(brightness: 255).identifier])
        #expect(try Self.reading("contrast(0)").options.filters.isEmpty)
        #expect(try Self.reading("sharpen(2,1,true)").options.filters.identifiers == [ImageProcessors.UnsharpMask(sigma: 1, amount: 2).identifier])
        #expect(try Self.reading("quality(0)").options.quality == nil)
        #expect(try Self.reading("focal(10x20:30x40)").options.layout.gravity == .focusPixel(x: 20, y: 30))
    }

    /// Arguments are split at commas outside brackets, parentheses and quotes, and filters at
    /// `):`, as thumbor splits them: a curve's points and a quoted URL with commas stay whole.
    @Test func argumentsAreSplitAsThumborSplitsThem() throws {
        let path = try ThumborPath("/unsafe/filters:curve([(0,0),(255,255)],[(0,50)],[],[(9,9)]):watermark('example.com/a,b.png',0,0,50)/example.com/a.jpg")
        #expect(path.filters.map(\.name) == ["curve", "watermark"])
        #expect(path.filters[0].arguments == ["[(0,0),(255,255)]", "[(0,50)]", "[]", "[(9,9)]"])
        #expect(path.filters[1].arguments == ["'example.com/a,b.png'", "0", "0", "50"])
    }

    /// `extract_focal()`: the image is a thumbor URL with a crop; its own image is loaded, and the
    /// crop's centre is the focus.
    @Test func extractFocalLoadsTheInnerImageAroundItsCrop() throws {
        let reading = try Self.reading("extract_focal()", image: "localhost:8888/unsafe/100x150:300x200/images.example.com/a.jpg")
        #expect(reading.source.absoluteString == "http://images.example.com/a.jpg")
        #expect(reading.options.layout.gravity == .focusPixel(x: 200, y: 175))
        #expect(reading.skipped.isEmpty)
        let plain = try Self.reading("extract_focal()", image: "images.example.com/a.jpg")
        #expect(plain.source.absoluteString == "http://images.example.com/a.jpg" && plain.skipped.count == 1)
    }

    /// End to end: the image is served, and what was skipped is said in a header and the log;
    /// `max_age` sets the answer's caching.
    @Test func theAnswerSaysWhatWasSkipped() async throws {
        try await withProxyFixture(configure: { $0.allowsUnsignedURLs = true }) { fixture in
            fixture.origin.serve("/a.png", .image(try TestImages.texture(width: 120, height: 80, format: .png)))
            let host = fixture.origin.url("/a.png").absoluteString.replacingOccurrences(of: "http://", with: "")
            let reply = try await fixture.get("/unsafe/60x40/filters:redeye():rotate(91):max_age(60)/\(host)")
            #expect(reply.status == 200)
            let said = try #require(reply.header("Magpie-Skipped"))
            #expect(said.contains("redeye: needs an eye detector") && said.contains("rotate(91)"))
            #expect(reply.header("Cache-Control") == "public, max-age=60")
            let logged = fixture.log.messages(atLeast: .info).compactMap { $0.metadata["skipped"] }
            #expect(logged.contains(said))
            let clean = try await fixture.get("/unsafe/60x40/filters:blur(1)/\(host)")
            #expect(clean.status == 200 && clean.header("Magpie-Skipped") == nil)
            #expect(clean.header("Cache-Control")?.hasPrefix("public, max-age=86400") == true)
        }
    }
}

/// thumbor's format settings: `AUTO_WEBP` and `AUTO_AVIF` write what the client accepts of
/// them (with `Vary: Accept`) where the URL names no format; `AUTO_PNG_TO_JPG` writes an opaque
/// PNG as JPEG; a still GIF stays GIF, as in thumbor and imgproxy.
@Suite("thumbor's format settings")
struct ThumborFormatSettingsTests {
    @Test func autoFormatsFollowTheClientsAccept() async throws {
        let opaque = try TestImages.texture(width: 120, height: 80, format: .png)
        let translucent = try ImageEncoder().encode(
            DecodedImage(width: 4, height: 4, pixels: Array([[UInt8]](repeating: [10, 20, 30, 128], count: 16).joined())), as: .png)
        let still = try ImageEncoder().encode(DecodedImage(width: 4, height: 4, pixels: [UInt8](repeating: 200, count: 64)), as: .gif)
        try await withProxyFixture(configure: {
            $0.allowsUnsignedURLs = true
            try $0.read(ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: ["AUTO_WEBP": "True", "AUTO_PNG_TO_JPG": "True"])))
        }) { fixture in
            fixture.origin.serve("/a.png", .image(opaque))
            fixture.origin.serve("/t.png", .image(translucent))
            fixture.origin.serve("/s.gif", .image(still))
            let webp = try await fixture.get("/unsafe/60x40/\(fixture.thumborImage("/a.png"))", headers: ["Accept": "image/webp,*/*;q=0.8"])
            #expect(ImageFormat(sniffing: webp.body) == .webp && webp.header("Vary") == "Accept")
            let plain = try await fixture.get("/unsafe/60x40/\(fixture.thumborImage("/a.png"))", headers: ["Accept": "image/avif,*/*"])
            #expect(ImageFormat(sniffing: plain.body) == .jpeg, "AUTO_AVIF is off, and the opaque PNG is written as JPEG")
            #expect(plain.header("Vary") == "Accept")
            let named = try await fixture.get("/unsafe/60x40/filters:format(png)/\(fixture.thumborImage("/a.png"))", headers: ["Accept": "image/webp"])
            #expect(ImageFormat(sniffing: named.body) == .png && named.header("Vary") == nil)
            let translucentReply = try await fixture.get("/unsafe/4x4/\(fixture.thumborImage("/t.png"))")
            #expect(ImageFormat(sniffing: translucentReply.body) == .png)
            let gif = try await fixture.get("/unsafe/4x4/\(fixture.thumborImage("/s.gif"))")
            #expect(ImageFormat(sniffing: gif.body) == .gif)
        }
    }

    /// `frame(URL)`: the nine-patch fetched from the origin once the request is admitted (a
    /// memory hit needs none), the result padded and framed; a frame from a host the source
    /// rules refuse is thumbor's 400, and so is one that cannot be loaded.
    @Test func frameFetchesItsNinePatchAndFramesTheResult() async throws {
        try await withProxyFixture(configure: {
            $0.allowsUnsignedURLs = true
            $0.sources = SourcePolicy(allowedHosts: ["127.0.0.1"])
        }) { fixture in
            let photo = try TestImages.texture(width: 300, height: 200, format: .png)
            fixture.origin.serve("/a.png", .image(photo))
            fixture.origin.serve("/frame.9.png", .image(try ProxyOptionsPage.ninePatch()))
            let path = "/unsafe/120x80/filters:frame(\(fixture.thumborImage("/frame.9.png"))):format(png)/\(fixture.thumborImage("/a.png"))"
            let framed = try await fixture.get(path)
            try #require(framed.status == 200, "\(framed.text)")
            let image = try VipsDecoder().decode(framed.body, thumbnail: nil, maximumPixels: .max)
            // The demo's patch puts the content 9 pixels in on every side.
            #expect(image.width == 120 + 18 && image.height == 80 + 18)
            #expect(image.pixel(x: 0, y: 0) == (60, 36, 20, 255) && image.pixel(x: 7, y: 40) == (212, 175, 55, 255))
            let again = try await fixture.get(path)
            #expect(again.body == framed.body && fixture.origin.statistics(for: "/frame.9.png").requests == 1)
            let refused = try await fixture.get("/unsafe/120x80/filters:frame(elsewhere.example/f.png)/\(fixture.thumborImage("/a.png"))")
            #expect(refused.status == 400, "\(refused.text)")
            let missing = try await fixture.get("/unsafe/120x80/filters:frame(\(fixture.thumborImage("/none.png")))/\(fixture.thumborImage("/a.png"))")
            #expect(missing.status == 400, "\(missing.text)")
        }
    }

    /// `round_corner(A|B,...)`: arcs A across and B down, as thumbor draws them.
    @Test func roundCornerReadsBothRadii() throws {
        let reading = try ThumborFilterTests.reading("round_corner(50|75,255,0,0)")
        let corners = try #require(reading.options.filters.processors.compactMap { $0 as? ImageProcessors.RoundedCorners }.first)
        #expect(corners.radius == 50 && corners.verticalRadius == 75)
        #expect(reading.skipped.isEmpty)
    }

    /// thumbor's MAX_WIDTH and MAX_HEIGHT cap the asked sides before any filter reads them: a
    /// fill's canvas is the capped box, not the asked one.
    @Test func sideLimitsComeBeforeTheFilters() throws {
        let reading = try ThumborReading(
            try ThumborPath("/unsafe/fit-in/1600x900/filters:fill(blur)/example.com/a.jpg"), limits: ProcessingLimits(),
            sideLimit: DecodedImage.Size(width: 1200, height: 1200))
        #expect(reading.options.layout.width == 1200 && reading.options.layout.height == 900)
        let backdrop = try #require(reading.options.filters.processors.compactMap { $0 as? ImageProcessors.Backdrop }.first)
        #expect(backdrop.width == 1200 && backdrop.height == 900)
        let unlimited = try ThumborFilterTests.reading("fill(blur)", size: "fit-in/1600x900")
        #expect(unlimited.options.layout.width == 1600)
    }
}
