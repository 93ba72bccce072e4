import Configuration
import Foundation
import Magpie
@testable import MagpieServer
import MagpieTesting
import Testing

/// What an operator chooses of the answers, with imgproxy's and thumbor's setting names: the
/// formats written from the client's `Accept`, the formats a source keeps, the health route and
/// the allowed origin.
@Suite("The operator's choices of answers")
struct AnswerChoicesTests {
    static func settings(_ values: [String: String]) -> (inout ProxyConfiguration) throws -> Void {
        { configuration in
            configuration.allowsUnsignedURLs = true
            try configuration.read(ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: values)))
        }
    }

    @Test func imgproxyAutomaticAndEnforcedFormatsFollowAccept() async throws {
        let photo = try TestImages.texture(width: 64, height: 48, format: .webp)
        try await withProxyFixture(configure: Self.settings(["IMGPROXY_AUTO_AVIF": "true", "IMGPROXY_ENFORCE_WEBP": "true"])) { fixture in
            fixture.origin.serve("/a.webp", .image(photo))
            let bare = fixture.path("/a.webp", "rs:fit:32:32")
            let avif = try await fixture.get(bare, headers: ["Accept": "image/avif,image/webp"])
            #expect(ImageFormat(sniffing: avif.body) == (ImageFormat.avif.isEncoderAvailable ? .avif : .webp))
            #expect(avif.header("Vary") == "Accept")
            let named = try await fixture.get(fixture.path("/a.webp", "rs:fit:32:32/f:png"), headers: ["Accept": "image/webp"])
            #expect(ImageFormat(sniffing: named.body) == .webp, "an enforced format overrides the URL's")
            let plain = try await fixture.get(fixture.path("/a.webp", "rs:fit:32:32/f:png"), headers: ["Accept": "image/*"])
            #expect(ImageFormat(sniffing: plain.body) == .png, "imgproxy reads only named types, not image/*")
            let unnamed = try await fixture.get(bare)
            #expect(ImageFormat(sniffing: unnamed.body) == .jpeg, "a WebP source is not among imgproxy's preferred formats")
            let unmarked = try await fixture.get(fixture.path("/a.webp", "rs:fit:32:32/wm:0.5:ce"))
            #expect(unmarked.status == 200 && unmarked.header("Magpie-Skipped")?.contains("no watermark is configured") == true)
        }
        try await withProxyFixture(configure: Self.settings(["IMGPROXY_PREFERRED_FORMATS": "webp,jpeg"])) { fixture in
            fixture.origin.serve("/a.webp", .image(photo))
            let kept = try await fixture.get(fixture.path("/a.webp", "rs:fit:32:32"))
            #expect(ImageFormat(sniffing: kept.body) == .webp)
        }
        var refused = ProxyConfiguration()
        #expect(throws: ProxyConfigurationError.self) { try Self.settings(["IMGPROXY_PREFERRED_FORMATS": "jpeg,svg"])(&refused) }
    }

    @Test func thumborsPreferenceReadsWildcardsAndConvertsStillsOnly() async throws {
        let photo = try TestImages.texture(width: 64, height: 48, format: .jpeg)
        let animated = try ImageEncoder().encode(
            DecodedImage(
                width: 4, height: 4, pixels: [UInt8](repeating: 200, count: 64) + [UInt8](repeating: 40, count: 64), animation: Animation(frameDelays: [100, 100], loopCount: 0)),
            as: .gif)
        let preference = Self.settings(["AUTO_IMAGE_FORMAT_PREFERENCE": "['png', ' WebP ', 'bogus']", "AUTO_WEBP": "False"])
        try await withProxyFixture(configure: preference) { fixture in
            fixture.origin.serve("/a.jpg", .image(photo))
            fixture.origin.serve("/m.gif", .image(animated))
            let png = try await fixture.get("/unsafe/32x24/\(fixture.thumborImage("/a.jpg"))", headers: ["Accept": "image/*;q=0.5"])
            #expect(ImageFormat(sniffing: png.body) == .png && png.header("Vary") == "Accept")
            let webp = try await fixture.get("/unsafe/32x24/\(fixture.thumborImage("/a.jpg"))", headers: ["Accept": "image/png;q=0,image/webp"])
            #expect(ImageFormat(sniffing: webp.body) == .webp)
            let kept = try await fixture.get("/unsafe/4x4/\(fixture.thumborImage("/m.gif"))", headers: ["Accept": "image/webp,image/png"])
            #expect(ImageFormat(sniffing: kept.body) == .gif, "thumbor converts only stills")
        }
    }

    @Test func thumborsHealthRouteAndTheAllowedOrigin() async throws {
        let photo = try TestImages.texture(width: 16, height: 16, format: .jpeg)
        try await withProxyFixture(configure: Self.settings(["HEALTHCHECK_ROUTE": "/ready/?", "ACCESS_CONTROL_ALLOW_ORIGIN_HEADER": "*"])) { fixture in
            fixture.origin.serve("/a.jpg", .image(photo))
            for path in ["/ready", "/ready/"] {
                let health = try await fixture.get(path)
                #expect(health.status == 200 && health.text == "WORKING" && health.header("Cache-Control") == "no-cache")
            }
            #expect(try await fixture.get("/healthcheck").status != 200)
            let image = try await fixture.get(fixture.path("/a.jpg", "rs:fit:8:8"))
            #expect(image.status == 200 && image.header("Access-Control-Allow-Origin") == "*")
        }
        var refused = ProxyConfiguration()
        #expect(throws: ProxyConfigurationError.self) { try Self.settings(["HEALTHCHECK_ROUTE": "/health(check)?"])(&refused) }
        #expect(throws: ProxyConfigurationError.self) { try Self.settings(["IMGPROXY_ALLOW_ORIGIN": "*\r\nSet-Cookie: a"])(&refused) }
    }
}
