import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// URLs built by imgproxy's own Python URL builder (PyPI `imgproxy`, Tests/Reference/imgproxy_urls.py),
/// signed with the proxy's key and salt: each answer's size, format and the source area it shows
/// are checked against what imgproxy's documentation says it makes (``DropInCase``).
@Suite("imgproxy drop-in")
struct ImgproxyDropInTests {
    @Test func everyBuiltURLIsAnsweredAsImgproxyWould() async throws {
        let png = try ImageEncoder().encode(DropInCase.gradient, as: .png)
        let magenta = DecodedImage(width: 40, height: 20, pixels: Array([[UInt8]](repeating: [255, 0, 255, 255], count: 800).joined()))
        let cyan = try ImageEncoder().encode(DecodedImage(width: 20, height: 20, pixels: Array([[UInt8]](repeating: [0, 255, 255, 255], count: 400).joined())), as: .png)
        try await withProxyFixture(configure: {
            $0.presets["thumb"] = "rs:fill:100:100"
            $0.watermark = .init(identifier: "magenta", image: magenta)
        }) { fixture in
            fixture.origin.serve("/g.png", .image(png, contentType: "image/png"))
            fixture.origin.serve("/mark.png", .image(cyan, contentType: "image/png"))
            fixture.origin.serve("/bordered.png", .image(try DropInCase.bordered(), contentType: "image/png"))
            let cases = try DropInCase.cases(
                script: "imgproxy_urls.py",
                [
                    ProxyFixture.key, ProxyFixture.salt, fixture.origin.url("/g.png").absoluteString,
                    fixture.origin.url("/bordered.png").absoluteString, fixture.origin.url("/mark.png").absoluteString,
                ])
            #expect(cases.count >= 40)
            for item in cases {
                try item.check(try await fixture.get(item.path), original: png)
            }
        }
    }
}
