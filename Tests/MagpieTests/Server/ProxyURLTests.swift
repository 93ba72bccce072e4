import Foundation
import Magpie
import MagpieTesting
@testable import MagpieServer
import Testing

/// Reading proxy URLs: options, presets, sources, and the 400 messages for malformed ones.
@Suite("Proxy URLs")
struct ProxyURLTests {
    static let parser = OptionParser(presets: ["thumb": ["s:256:256", "fit:fill", "q:70"], "sharp": ["q:95"]], limits: ProxyLimits())

    @Test func optionsInShortAndLongForms() throws {
        let short = try Self.parser.parse(["s:300:200", "fit:fill", "g:sm", "q:70", "f:webp", "dpr:2", "bl:1.5", "r:8", "ff:1"])
        let long = try Self.parser.parse(["width:300", "height:200", "fit:fill", "gravity:smart", "quality:70", "format:webp", "dpr:2", "blur:1.5", "round:8", "first-frame:true"])
        #expect(short == long)
        #expect(short.pixelWidth == 600 && short.pixelHeight == 400)
        #expect(short.gravity == .attention && short.format == .webp && short.firstFrame)
        #expect(short.canonical == "s:600:400/fit:fill/g:attention/q:70/blur:3.0/r:16/ff")
    }

    @Test func presetsExpandInPlaceAndLaterOptionsWin() throws {
        let options = try Self.parser.parse(["pr:thumb", "q:90"])
        #expect(options.width == 256 && options.fit == .fill && options.quality == 90)
        let both = try Self.parser.parse(["pr:thumb:sharp"])
        #expect(both.quality == 95)
    }

    @Test(arguments: [
        (["s:abc"], "option 's:abc': sizes are whole numbers from 0 to 8192"),
        (["q:0"], "option 'q:0': quality is a whole number from 1 to 100"),
        (["fit:stretch"], "option 'fit:stretch': fit is one of fit, fill, crop"),
        (["g:middle"], "option 'g:middle': gravity is one of centre, north, south, east, west, smart, entropy"),
        (["f:bmp"], "option 'f:bmp': format is one of jpeg, png, webp, avif, gif, auto"),
        (["dpr:5"], "option 'dpr:5': dpr is a number above 0 and at most 4"),
        (["zoom:2"], "unknown option 'zoom' in 'zoom:2'"),
        (["pr:nope"], "option 'pr:nope': no preset named 'nope'"),
        (["s:8000:8000", "dpr:2"], "the output would be 16000x16000 pixels; at most 8192 on a side"),
        (["s:8000:8000"], "the output would be 8000x8000 pixels; at most 40000000 in all"),
        (["s:200:0", "fit:fill"], "fit:fill needs both a width and a height"),
    ])
    func malformedOptionsSayWhatIsWrong(segments: [String], message: String) {
        #expect(throws: ProxyURLError(status: 400, message: message)) { try Self.parser.parse(segments) }
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
        ("/sig/s:100/plain/ftp%3A%2F%2Fexample.com%2Fa.jpg", "the source 'ftp://example.com/a.jpg' is not an http or https URL"),
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

    @Test func acceptHeadersReduceToWhatMatters() {
        typealias Accepted = FormatNegotiation.Accepted
        #expect(Accepted(header: "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8").key == "avif+webp")
        #expect(Accepted(header: "image/webp,*/*").key == "webp")
        #expect(Accepted(header: "image/avif;q=0, image/webp;q=0.5").key == "webp")
        #expect(Accepted(header: "*/*").key == "")
        #expect(Accepted(header: nil).key == "")
    }
}
