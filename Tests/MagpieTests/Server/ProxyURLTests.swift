import Foundation
import Magpie
import MagpieTesting
@testable import MagpieServer
import Testing

/// Reading proxy URLs: options, presets, sources, and the 400 messages for malformed ones.
@Suite("Proxy URLs")
struct ProxyURLTests {
    static let parser = OptionParser(presets: ["thumb": ["s:256:256", "fit:fill", "q:70"], "sharp": ["q:95"]], limits: ProcessingLimits())

    @Test func optionsInShortAndLongForms() throws {
        let short = try Self.parser.parse(["s:300:200", "rt:fill", "g:sm", "q:70", "f:webp", "dpr:2", "bl:1.5", "r:8", "ff:1"])
        let long = try Self.parser.parse([
            "width:300", "height:200", "resizing_type:fill", "gravity:sm", "quality:70", "format:webp", "dpr:2", "blur:1.5", "round:8",
            "first-frame:true",
        ])
        let magpie = try Self.parser.parse(["s:300:200", "fit:fill", "g:smart", "q:70", "ext:webp", "dpr:2", "bl:1.5", "r:8", "ff:t"])
        #expect(short == long && short == magpie)
        #expect(short.layout.width == 300 && short.layout.height == 200 && short.layout.dpr == 2 && short.layout.resizing == .fill)
        #expect(short.layout.gravity == .smart(.attention) && short.format == .fixed(.webp) && short.firstFrame)
        let plan = RenderPlan(short, limits: ProcessingLimits())
        #expect(plan.firstFrameOnly)
        // The blur's sigma is in output pixels, as imgproxy's; the corner radius in CSS pixels.
        #expect(plan.processors.map(\.identifier) == [
            ImageProcessors.Layout(
                short.layout, filters: [ImageProcessors.GaussianBlur(sigma: 1.5), ImageProcessors.RoundedCorners(radius: 16)]
            ).identifier
        ])
    }

    static let pipeline = ImagePipeline.Configuration()

    /// The name the proxy's result is kept and validated under (beside the source's key).
    static func key(_ segments: [String], accept: String? = nil) throws -> String {
        let options = try parser.parse(segments)
        // The proxy names a mark by its source before fetching or drawing it.
        let mark = options.watermark.map { watermark -> ImageProcessors.Watermark.Mark in
            switch watermark.mark {
            case .configured: .init(identifier: "configured", image: DecodedImage(width: 1, height: 1, pixels: [0, 0, 0, 0]))
            case .url(let url): .init(identifier: "url:\(url)", image: DecodedImage(width: 1, height: 1, pixels: [0, 0, 0, 0]))
            case .text(let text): .init(identifier: ImageProcessors.Watermark.Mark.textIdentifier(text), image: DecodedImage(width: 1, height: 1, pixels: [0, 0, 0, 0]))
            }
        }
        let request = RenderPlan(options, limits: ProcessingLimits()).imageRequest(for: URL(string: "https://example.com/a.jpg")!, mark: mark)
        let encoding = FormatNegotiation.encoding(
            for: options.format, accept: accept, quality: options.quality ?? 80, formatQuality: options.formatQuality,
            maximumBytes: options.maximumBytes, keepsCopyright: options.keepsCopyright)
        return pipeline.encodedImageKey(for: request, encoding: encoding).variant
    }

    /// Every option changes the result's cache key: the key is derived from the processors and
    /// the encoding, so an option cannot be forgotten in it and serve one request's image to another.
    static let changes = [
        ["s:300:100"], ["w:300"], ["h:150"], ["fit:crop"], ["g:north"], ["q:70"], ["f:png"], ["f:auto"], ["dpr:2"], ["bl:2"], ["r:8"],
        ["ff:1"], ["circle:1"], ["grayscale:1"], ["bl:0"], ["r:0"], ["sh:1"], ["pix:4"], ["rt:force"], ["mw:300"], ["mh:300"],
        ["z:2"], ["el:1"], ["ex:1"], ["exar:1"], ["c:100:50"], ["pd:4"], ["rot:90"], ["fl:1"], ["bg:ff0000"], ["fq:webp:50"],
        ["g:fp:0.2:0.3"], ["g:no:10:5"], ["mb:5000"], ["t:10"], ["a:10"], ["br:5"], ["co:1.2"], ["sa:0.5"],
        ["kcr:1"], ["hue:90"], ["usm:1:2"], ["mc:1"], ["dt:1:000000:ff0000"], ["pg:1"], ["bg:ff0000", "bga:0.5"], ["wm:0.5"], ["wm:1:re"], ["wm:1:ce:0:0:0.5"], ["wm:1", "wmt:TWFncGll"], ["wm:1", "wmu:aHR0cHM6Ly9leGFtcGxlLmNvbS93LnBuZw"],
    ]

    @Test(arguments: changes)
    func everyOptionChangesTheKey(_ change: [String]) throws {
        let base = ["s:200:100", "fit:fill", "g:centre", "q:80", "f:webp", "bl:1", "r:4"]
        #expect(try Self.key(base + change) != Self.key(base), "\(change)")
        #expect(try Self.key(base + change) == Self.key(base + change), "\(change): the same options, the same key")
    }

    /// imgproxy reads a colour's short form as CSS does (its own tests use `bg:f00`).
    @Test func coloursInTheirShortForm() throws {
        #expect(try Self.parser.parse(["bg:f00"]).background == Colour(red: 255, green: 0, blue: 0))
        #expect(try Self.parser.parse(["bg:F0A"]) == Self.parser.parse(["bg:ff00aa"]))
        #expect(try Self.parser.parse(["t:10:fff"]) == Self.parser.parse(["t:10:ffffff"]))
        // Shared processors keep their values as written until built: the same processor, the same key.
        #expect(try Self.key(["dt:1:000:f00"]) == Self.key(["dt:1:000000:ff0000"]))
    }

    @Test func theChangesCoverEveryProcessingOption() {
        let changed = Set(Self.changes.map { String($0[0].prefix { $0 != ":" }) })
        for option in ProcessingOption.all {
            #expect(!changed.isDisjoint(with: option.names), "\(option.name) is not among the changes")
        }
    }

    @Test func urlsAskingForTheSameShareAKeyAndAcceptMattersOnlyForAuto() throws {
        #expect(try Self.key(["w:200", "bl:1.5", "r:4"]) == Self.key(["r:4", "blur:1.5", "width:200", "g:ce"]), "order, spelling and defaults")
        #expect(try Self.key(["rs:fill:200:100"]) == Self.key(["s:200:100", "rt:fill"]))
        #expect(try Self.key(["q:0"]) == Self.key(["q:80"]), "quality 0 is the server's default")
        #expect(try Self.key(["f:webp"], accept: "image/avif") == Self.key(["f:webp"]))
        #expect(try Self.key(["f:auto"], accept: "image/avif") != Self.key(["f:auto"], accept: "image/webp"))
    }

    @Test func presetsExpandInPlaceAndLaterOptionsWin() throws {
        let options = try Self.parser.parse(["pr:thumb", "q:90"])
        #expect(options.layout.width == 256 && options.layout.resizing == .fill && options.quality == 90)
        let both = try Self.parser.parse(["pr:thumb:sharp"])
        #expect(both.quality == 95)
    }

    /// imgproxy's preset rules: `default` applies to every URL first; presets may name presets,
    /// and one naming itself (directly or not) is skipped there.
    @Test func theDefaultPresetComesFirstAndPresetsMayNest() throws {
        let parser = OptionParser(
            presets: ["default": ["q:60", "bl:1"], "card": ["pr:thumb", "f:webp"], "loop": ["pr:loop", "w:10"], "thumb": ["s:256:256", "rt:fill"]],
            limits: ProcessingLimits())
        let plain = try parser.parse([])
        #expect(plain.quality == 60 && plain.filters.identifiers == [ImageProcessors.GaussianBlur(sigma: 1).identifier])
        let overridden = try parser.parse(["q:90"])
        #expect(overridden.quality == 90)
        let nested = try parser.parse(["pr:card"])
        #expect(nested.layout.width == 256 && nested.format == .fixed(.webp))
        #expect(try parser.parse(["pr:loop"]).layout.width == 10)
    }

    /// `expires` is read against the injected clock: a past time is 410, a future one passes.
    @Test func expiredURLsAreGone() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let parser = OptionParser(presets: [:], limits: ProcessingLimits(), now: { now })
        #expect(try parser.parse(["exp:1800000060"]).expires == 1_800_000_060)
        #expect(try parser.parse(["exp:0"]).expires == nil, "0 never expires")
        #expect(throws: ProxyURLError(status: 410, message: "the URL expired at \(Date(timeIntervalSince1970: 1_799_999_999))")) {
            try parser.parse(["exp:1799999999"])
        }
    }

    /// The source's extension names the format: `@ext` after a plain source, `.ext` after base64.
    @Test func theSourceExtensionNamesTheFormat() throws {
        let plain = try ProxyPath("/sig/s:100/plain/https%3A%2F%2Fexample.com%2Fa%40b.jpg@webp")
        #expect(plain.source.absoluteString == "https://example.com/a@b.jpg" && plain.sourceExtension == "webp")
        let encoded = Base64URL.encode(Array("https://example.com/a.jpg".utf8))
        let base64 = try ProxyPath("/sig/s:100/" + encoded + ".png")
        #expect(base64.source.absoluteString == "https://example.com/a.jpg" && base64.sourceExtension == "png")
        #expect(try ProxyPath("/sig/" + encoded).sourceExtension == nil)
    }

    /// A deployment's URL settings: another argument separator, presets only, a base for
    /// relative sources, a file name after base64, the options allowed.
    @Test func urlsAreReadByTheDeploymentsRules() throws {
        var rules = ImgproxyURLRules()
        rules.argumentsSeparator = ","
        let commas = try ProxyPath("/sig/rs,fill,300,200/plain/https%3A%2F%2Fexample.com%2Fa.jpg", rules: rules)
        #expect(commas.optionSegments == ["rs,fill,300,200"])
        var parser = OptionParser(presets: ["small": ["rs:fit:50:50"], "sharp": ["sh:1"]], limits: ProcessingLimits())
        parser.rules = rules
        #expect(try parser.parse(commas.optionSegments).layout.width == 300)
        rules = ImgproxyURLRules()
        rules.onlyPresets = true
        let presets = try ProxyPath("/sig/small:sharp/plain/https%3A%2F%2Fexample.com%2Fa.jpg", rules: rules)
        parser.rules = rules
        #expect(try parser.parse(presets.optionSegments).layout.width == 50)
        rules = ImgproxyURLRules()
        rules.baseURL = "https://images.example.com/"
        rules.base64URLIncludesFilename = true
        let relative = try ProxyPath("/sig/s:100/" + Base64URL.encode(Array("cats/a.jpg".utf8)) + ".png/puppy.jpg", rules: rules)
        #expect(relative.source.absoluteString == "https://images.example.com/cats/a.jpg" && relative.sourceExtension == "png")
        rules = ImgproxyURLRules()
        rules.allowedOptions = ["w", "pr"]
        parser.rules = rules
        #expect(try parser.parse(["w:100", "pr:small"], fileExtension: "png").format == .fixed(.png), "presets and the extension are not URL options")
        #expect(throws: ProxyURLError.self) { try parser.parse(["w:100", "h:100"]) }
        rules = ImgproxyURLRules()
        rules.replacements = [
            ImgproxyURLRules.Replacement(pattern: "test://*/", replacement: "test2://images.example.com/${1}/dolor/")!,
            ImgproxyURLRules.Replacement(pattern: "test2://", replacement: "https://")!,
        ]
        let replaced = try ProxyPath("/sig/s:100/plain/test://lorem/ipsum.jpg@png", rules: rules)
        #expect(replaced.source.absoluteString == "https://images.example.com/lorem/dolor/ipsum.jpg")
        #expect(rules.based("https://other.example.com/test://x/") == "https://other.example.com/test://x/", "only a source's beginning")
    }

    @Test(arguments: [
        (["s:abc"], "option 's:abc': 'abc' is not a whole number from 0 to 8192"),
        (["q:101"], "option 'q:101': '101' is not a whole number from 0 to 100"),
        (["fit:stretch"], "option 'fit:stretch': fit is one of fit, fill, crop"),
        (["rt:stretch"], "option 'rt:stretch': the resizing type is one of fit, fill, fill-down, force, auto"),
        (["g:middle"], "option 'g:middle': 'middle' is not a gravity; one of ce, no, so, ea, we, noea, nowe, soea, sowe, sm, entropy, fp:X:Y"),
        (["g:fp:2:0"], "option 'g:fp:2:0': a focus point is fp:X:Y with X and Y from 0 to 1"),
        (["ex:1:sm"], "option 'ex:1:sm': 'sm' is a crop's gravity; here it is one of ce, no, so, ea, we, noea, nowe, soea, sowe, fp:X:Y"),
        (["f:jp2"], "option 'f:jp2': 'jp2' is not an image format Magpie knows"),
        (["dpr:0"], "option 'dpr:0': dpr is a number above 0 and at most 100"),
        (["rot:45"], "option 'rot:45': rotate takes a multiple of 90 degrees"),
        (["el:maybe"], "option 'el:maybe': 'maybe' is not 1 (true) or 0 (false)"),
        (["bg:12"], "option 'bg:12': a background is bg:RRGGBB (or RGB) in hex or bg:R:G:B"),
        (["bg:f0g"], "option 'bg:f0g': a background is bg:RRGGBB (or RGB) in hex or bg:R:G:B"),
        (["bg:+12345"], "option 'bg:+12345': a background is bg:RRGGBB (or RGB) in hex or bg:R:G:B"),
        (["t:10:ff00"], "option 't:10:ff00': a trim's colour is RRGGBB (or RGB) in hex"),
        (["wm:2"], "option 'wm:2': a watermark's opacity is a number from 0 to 1"),
        (["wm:1:up"], "option 'wm:1:up': a watermark's position is one of ce, no, so, ea, we, noea, nowe, soea, sowe, re"),
        (["wm:1:ce:0:0:3"], "option 'wm:1:ce:0:0:3': a watermark's scale is a number from 0 to 1"),
        (["wmu:ZmlsZTovLy9ldGMvcGFzc3dk"], "option 'wmu:ZmlsZTovLy9ldGMvcGFzc3dk': the watermark's URL is URL-safe base64 of an http or https URL"),
        (["wmt:!!"], "option 'wmt:!!': the watermark's text is URL-safe base64 of 1 to 1024 bytes of UTF-8"),
        (["bogus:2"], "unknown option 'bogus' in 'bogus:2'"),
        (["pr:nope"], "option 'pr:nope': no preset named 'nope'"),
        (["s:8000:8000", "dpr:2"], "the output would be 16000x16000 pixels; at most 8192 on a side"),
        (["s:8000:8000"], "the output would be 8000x8000 pixels; at most 40000000 in all"),
        (["pd:4000:5000"], "the padding would add more than 8192 pixels on a side"),
    ])
    func malformedOptionsSayWhatIsWrong(segments: [String], message: String) {
        #expect(throws: ProxyURLError(status: 400, message: message)) { try Self.parser.parse(segments) }
    }

    /// A format Magpie knows but does not write is a 422: the URL is well formed; an unknown name
    /// stays a 400. (`f:svg` is read: an SVG source is passed through, any other is a 422.)
    @Test(arguments: [["fq:svg:50"]])
    func formatsMagpieDoesNotWriteAre422(segments: [String]) {
        #expect {
            try Self.parser.parse(segments)
        } throws: { error in
            guard let error = error as? ProxyURLError else { return false }
            return error.status == 422 && error.message.hasSuffix("Magpie writes jpeg, png, webp, avif, gif, heif, tiff, bmp, ico, jxl, auto, not \(segments.last!.split(separator: ":")[1])")
        }
    }

    /// What the migration article lists as refused is a 400 naming it, never ignored (imgproxy's
    /// grammar answers it 404).
    @Test(arguments: ["eth:1", "pages:2"])
    func refusedOptionsAreNamed(segment: String) {
        let name = String(segment.prefix { $0 != ":" })
        #expect {
            try Self.parser.parse([segment])
        } throws: { error in
            guard let error = error as? ProxyURLError else { return false }
            return error.status == 400 && error.message.contains("'\(name)")
        }
    }

    /// `preserve_hdr` (`ph`) on or off is the URL's word over the operator's default; unsaid,
    /// the default holds.
    @Test func preserveHDRIsRead() throws {
        #expect(try Self.parser.parse([]).preservesHighDepth == nil)
        #expect(try Self.parser.parse(["ph:0"]).preservesHighDepth == false)
        #expect(try Self.parser.parse(["preserve_hdr:true"]).preservesHighDepth == true)
        #expect(try Self.parser.parse(["ph:1", "ph:0"]).preservesHighDepth == false)
    }

    /// What a CDN or a browser normalised, restored as imgproxy restores it before the
    /// signature is checked (its handlers/path.go); anything else left as it is.
    @Test(arguments: [
        ("/sig/rs%3Afill%3A100%3A100/plain/http:/example.com/a.jpg", "/sig/rs:fill:100:100/plain/http://example.com/a.jpg"),
        ("/sig/plain/https:/example.com/a:/b.jpg@png", "/sig/plain/https://example.com/a:/b.jpg@png"),
        ("/sig/q%3a80/plain/local:/photos/a.jpg", "/sig/q:80/plain/local:///photos/a.jpg"),
        ("/sig/s%3A100/aHR0cHM6Ly9leGFtcGxlLmNvbS9hLmpwZw", "/sig/s:100/aHR0cHM6Ly9leGFtcGxlLmNvbS9hLmpwZw"),
        ("/sig/s:100/plain/http%3A%2F%2Fexample.com%2Fa.jpg", "/sig/s:100/plain/http%3A%2F%2Fexample.com%2Fa.jpg"),
        ("/sig/s:100/plain/http://example.com/a.jpg", "/sig/s:100/plain/http://example.com/a.jpg"),
        ("/sig/s:100/plain/http:///example.com/a.jpg", "/sig/s:100/plain/http:///example.com/a.jpg"),
    ])
    func normalisedPathsAreRestored(path: String, restored: String) {
        #expect(ProxyPath.restoringNormalisation(path) == restored)
    }

    @Test func plainAndBase64SourcesAgree() throws {
        let source = "https://example.com/photos/a b.jpg?size=large"
        let plain = try ProxyPath("/sig/s:100/plain/" + source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let encoded = Base64URL.encode(Array(source.utf8))
        let split = try ProxyPath("/sig/s:100/" + encoded.prefix(10) + "/" + encoded.dropFirst(10))
        #expect(plain.source == split.source)
        #expect(plain.source.absoluteString == "https://example.com/photos/a%20b.jpg?size=large")
        #expect(plain.optionSegments == ["s:100"] && plain.signature == "sig")
        #expect(split.signedPart == "/s:100/" + encoded.prefix(10) + "/" + encoded.dropFirst(10))
    }

    @Test(arguments: [
        ("/", "the path is /SIGNATURE/OPTIONS/SOURCE; '/' has no source"),
        ("/sig/s:100", "no source URL after the options"),
        ("/sig/s:100/plain/ftp%3A%2F%2Fexample.com%2Fa.jpg", "the source 'ftp://example.com/a.jpg' is not an http, https, local, s3, gs, abs or swift URL"),
        ("/sig/s:100/!!!", "the source is neither plain/<percent-encoded URL> nor URL-safe base64 of a URL"),
        ("/sig/plain/http%3A%2F%2F%2Fa.jpg", "the source 'http:///a.jpg' has no host"),
    ])
    func malformedPathsSayWhatIsWrong(path: String, message: String) {
        #expect(throws: ProxyURLError(status: 400, message: message)) { try ProxyPath(path) }
    }

    @Test func signaturesVerifyWithEveryKeyAndNothingElse() throws {
        let old = try SigningKey(keyHex: "6b6579", saltHex: "73616c74")
        let new = try SigningKey(keyHex: "a1b2c3d4", saltHex: "")
        let signer = URLSigner(keys: [new, old])
        let part = "/s:256:256/plain/https%3A%2F%2Fexample.com%2Fa.jpg"
        let oldSignature = URLSigner(keys: [old]).signature(for: part)
        #expect(signer.isValid(oldSignature, for: part))
        #expect(signer.isValid(signer.signature(for: part), for: part))
        #expect(!signer.isValid(oldSignature, for: part.replacingOccurrences(of: "256", with: "257")))
        #expect(!signer.isValid(String(oldSignature.dropLast()), for: part))
        #expect(!signer.isValid("not base64 at all!", for: part))
        #expect(!URLSigner(keys: []).isValid(oldSignature, for: part))
    }

    /// The signature scheme is imgproxy's: HMAC-SHA256 over salt + path, URL-safe base64.
    @Test func signatureMatchesAnIndependentHMAC() throws {
        let key = try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)
        let part = "/rs:fit:300:300/plain/http%3A%2F%2Fimg.example.com%2Fpretty%2Fimage.jpg"
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reference/hmac_signature.py")
        let python = String(decoding: try PythonScript.run(script, [ProxyFixture.key, ProxyFixture.salt, part]), as: UTF8.self)
        #expect(URLSigner(keys: [key]).signature(for: part) == python.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Truncated signatures are imgproxy's too: the first bytes of the same HMAC.
    @Test(arguments: [8, 16, 32])
    func truncatedSignaturesMatchAnIndependentHMAC(size: Int) throws {
        let key = try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)
        let part = "/rs:fit:300:300/plain/http%3A%2F%2Fimg.example.com%2Fpretty%2Fimage.jpg"
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reference/hmac_signature.py")
        let python = String(decoding: try PythonScript.run(script, [ProxyFixture.key, ProxyFixture.salt, part, String(size)]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let signer = URLSigner(keys: [key], signatureSize: size)
        #expect(signer.signature(for: part) == python)
        #expect(signer.isValid(python, for: part))
        // A signature of another size is refused, even the full one when truncation is on.
        let full = URLSigner(keys: [key]).signature(for: part)
        #expect(signer.isValid(full, for: part) == (size == 32))
        #expect(!signer.isValid(python, for: part + "x"))
    }

    /// The signature is checked before the rest of the path is read: a bad one is a 403
    /// whatever follows it, even a path that would be a 400.
    @Test(arguments: ["/bad/s:100/plain/ftp%3A%2F%2Fexample.com%2Fa.jpg", "/bad/s:99999/!!!", "/bad/x"])
    func theSignatureIsCheckedFirst(path: String) async throws {
        let proxy = try ImageProxy(configuration: {
            var configuration = ProxyConfiguration()
            configuration.signingKeys = [try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)]
            return configuration
        }())
        let response = await proxy.respond(to: ProxyRequest(path: path, headers: [:]))
        await proxy.shutdown()
        #expect(response.status == 403, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// A trace records a request's path with its source `REDACTED` (a source can carry a
    /// password, a presigned query, a private host), in either grammar, under a mount prefix,
    /// signed or not, and whether or not the rest reads.
    @Test func aTracedPathKeepsTheOptionsAndRedactsTheSource() async throws {
        var unsigned = ProxyConfiguration()
        unsigned.allowsUnsignedURLs = true
        let proxy = try ImageProxy(configuration: unsigned)
        let prefixed = try ImageProxy(configuration: {
            var configuration = unsigned
            (configuration.imgproxyPathPrefix, configuration.thumborPathPrefix) = ("/i", "/t")
            return configuration
        }())
        let cases: [(ImageProxy, String, String)] = [
            (proxy, "/unsafe/rs:fill:300:200/bl:2/plain/https%3A%2F%2Fuser%3Apw%40example.com%2Fa.jpg@webp", "/unsafe/rs:fill:300:200/bl:2/REDACTED"),
            (proxy, "/sig/w:100/aHR0cHM6Ly9leGFtcGxlLmNvbS9hLmpwZw.png", "/sig/w:100/REDACTED"),
            (proxy, "/info/sig/plain/https://example.com/secret.jpg", "/info/sig/REDACTED"),
            (proxy, "/unsafe/fit-in/300x200/smart/filters:hue(90)/example.com/private/a.jpg", "/unsafe/fit-in/300x200/smart/filters:hue(90)/REDACTED"),
            (proxy, "/unsafe/300x200/!!/x:(", "/unsafe/300x200/REDACTED"),
            (proxy, "/unsafe/999999x1/example.com/a.jpg", "/unsafe/REDACTED"),
            (prefixed, "/i/unsafe/w:10/plain/https://example.com/a.jpg", "/i/unsafe/w:10/REDACTED"),
            (prefixed, "/t/unsafe/10x10/example.com/a.jpg", "/t/unsafe/10x10/REDACTED"),
            (prefixed, "/elsewhere/https://example.com/a.jpg", "REDACTED"),
            (proxy, "/health", "/health"),
        ]
        for (server, path, traced) in cases {
            #expect(server.redacted(path) == traced, "\(path)")
        }
        await proxy.shutdown()
        await prefixed.shutdown()
    }

    @Test func keysMustBeHex() {
        #expect(throws: SigningKeyError.self) { try SigningKey(keyHex: "xyz", saltHex: "00") }
        #expect(throws: SigningKeyError.self) { try SigningKey(keyHex: "00", saltHex: "0") }
    }

    @Test func allowListMatchesHostsAndSubdomains() throws {
        let policy = SourcePolicy(allowedHosts: ["example.com", "*.cdn.example.org"])
        try policy.check(URL(string: "https://example.com/a.jpg")!)
        try policy.check(URL(string: "https://img.cdn.example.org/a.jpg")!)
        #expect(throws: MagpieError.self) { try policy.check(URL(string: "https://cdn.example.org/a.jpg")!) }
        #expect(throws: MagpieError.self) { try policy.check(URL(string: "https://evil-example.com/a.jpg")!) }
        #expect(throws: MagpieError.self) { try policy.check(URL(string: "https://example.com.evil.net/a.jpg")!) }
    }

    @Test func base64URLRoundTripsAndRefusesMisplacedPadding() {
        // 0xFB 0xFF is "+/8=" in the standard alphabet.
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF] && Base64URL.decode("-_8=") == [0xFB, 0xFF])
        #expect(Base64URL.decode("YQ==") == [0x61] && Base64URL.decode("YQ") == [0x61])
        #expect(Base64URL.decode("Y=Q") == nil && Base64URL.decode("!!!!") == nil)
        var generator = SystemRandomNumberGenerator()
        for length in 0..<40 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("+") && !encoded.contains("/") && !encoded.contains("="))
            #expect(Base64URL.decode(encoded) == bytes)
        }
    }

    @Test func acceptHeadersAreReadForImageFormats() {
        let accepted = FormatNegotiation.accepted
        #expect(accepted("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8") == [.avif, .webp])
        #expect(accepted("image/webp,*/*") == [.webp])
        #expect(accepted("image/avif;q=0, image/webp;q=0.5, image/png") == [.webp, .png])
        #expect(accepted("*/*").isEmpty && accepted(nil).isEmpty)
    }

    /// Only what can change the choice enters the key: browsers differing in other types share.
    @Test func acceptHeadersReduceToWhatMatters() throws {
        #expect(try Self.key(["f:auto"], accept: "image/avif,image/webp,image/apng,*/*;q=0.8") == Self.key(["f:auto"], accept: "image/webp,image/avif"))
        #expect(try Self.key(["f:auto"], accept: "image/webp,image/png") == Self.key(["f:auto"], accept: "image/webp"))
        #expect(try Self.key(["f:auto"], accept: "image/avif;q=0, image/webp") == Self.key(["f:auto"], accept: "image/webp"))
        #expect(try Self.key(["f:auto"], accept: "*/*") == Self.key(["f:auto"]))
    }
}
