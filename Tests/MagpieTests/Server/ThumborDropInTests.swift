import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// URLs built and signed by `libthumbor` (PyPI, Tests/Reference/thumbor_urls.py), served on the
/// same port as imgproxy's: each answer's size, format and the source area it shows are checked
/// against what thumbor's transformer makes of it (``DropInCase``).
@Suite("thumbor drop-in")
struct ThumborDropInTests {
    static let securityKey = "MY_SECURE_KEY"

    @Test func everyBuiltURLIsAnsweredAsThumborWould() async throws {
        let png = try ImageEncoder().encode(DropInCase.gradient, as: .png)
        try await withProxyFixture(configure: { $0.thumborSecurityKeys = [Self.securityKey]; $0.allowsUnsignedURLs = true }) { fixture in
            fixture.origin.serve("/g.png", .image(png, contentType: "image/png"))
            fixture.origin.serve("/bordered.png", .image(try DropInCase.bordered(), contentType: "image/png"))
            let magenta = DecodedImage(width: 40, height: 20, pixels: Array([[UInt8]](repeating: [255, 0, 255, 255], count: 800).joined()))
            fixture.origin.serve("/mark.png", .image(try ImageEncoder().encode(magenta, as: .png), contentType: "image/png"))
            let cases = try DropInCase.cases(script: "thumbor_urls.py", [Self.securityKey, fixture.thumborImage("/g.png"), fixture.thumborImage("/bordered.png"), fixture.thumborImage("/mark.png")])
            #expect(cases.count >= 30)
            for item in cases {
                try item.check(try await fixture.get(item.path), original: png)
            }
            // An imgproxy URL on the same port still answers.
            let imgproxy = try await fixture.get(fixture.path("/g.png", "rs:fit:300:300"))
            #expect(imgproxy.status == 200)
        }
    }

    /// A source that is not an image is thumbor's 400 ("cannot identify image file") on its URLs,
    /// imgproxy's 422 on imgproxy's, from one proxy.
    @Test func eachGrammarAnswersAnUnreadableSourceWithItsServersStatus() async throws {
        try await withProxyFixture(configure: { $0.thumborSecurityKeys = [Self.securityKey] }) { fixture in
            fixture.origin.serve("/broken.jpg", .image(Array("not a picture at all".utf8), contentType: "image/jpeg"))
            let source = fixture.origin.url("/broken.jpg")
            let part = "100x100/\(source.host ?? "127.0.0.1"):\(source.port ?? 80)/broken.jpg"
            let thumbor = try await fixture.get("/" + ThumborSigner(keys: [Self.securityKey]).signature(for: part) + "/" + part)
            #expect(thumbor.status == 400, "\(thumbor.text)")
            #expect(try await fixture.get(fixture.path("/broken.jpg", "rs:fit:100:100")).status == 422)
        }
    }
}
