import Configuration
import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// imgproxy's `preserve_hdr` (`ph`) and `IMGPROXY_PRESERVE_HDR`: a 16-bit source keeps 16 bits
/// a sample in PNG and TIFF results, through the geometry.
@Suite("Proxy: preserve_hdr")
struct PreserveHDRTests {
    static func depth(of reply: ProxyFixture.Reply) throws -> DecodedImage.SampleDepth {
        var options = DecodingOptions()
        options.keepsHighDepth = true
        return try VipsDecoder().decode(reply.body, options: options).sampleDepth
    }

    @Test func theOptionAndTheSettingKeepSixteenBits() async throws {
        let (bytes, _) = try HighDepthTests.source("rgb", width: 60, height: 40)
        for preserving in [false, true] {
            try await withProxyFixture(configure: { configuration in
                try configuration.read(ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: [
                    "IMGPROXY_PRESERVE_HDR": preserving ? "true" : "false"
                ])))
                configuration.allowsUnsignedURLs = true
            }) { fixture in
                fixture.origin.serve("/deep.png", .image(bytes))
                for (options, kept) in [
                    ("rs:fill:20:20/f:png", preserving), ("rs:fill:20:20/f:png/ph:1", true), ("rs:fill:20:20/f:png/preserve_hdr:0", false),
                    ("rs:fit:30:30/pd:5/f:tiff/ph:1", true), ("rs:fill:20:20/f:webp/ph:1", false), ("rs:fill:20:20/f:png/bl:2/ph:1", false),
                ] {
                    let reply = try await fixture.get(fixture.path("/deep.png", options))
                    #expect(reply.status == 200, "\(options)")
                    #expect(try Self.depth(of: reply) == (kept ? .sixteen : .eight), "\(options), IMGPROXY_PRESERVE_HDR \(preserving)")
                }
                // imgproxy's setting is imgproxy's: thumbor's URLs get 8 bits, as from thumbor.
                let thumbor = try await fixture.get("/unsafe/20x20/filters:format(png)/" + fixture.thumborImage("/deep.png"))
                #expect(thumbor.status == 200, "\(thumbor.text)")
                #expect(try Self.depth(of: thumbor) == .eight)
            }
        }
    }
}
