import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// imgproxy's per-URL security options: refused (403, as imgproxy answers) unless the operator
/// allows them, and then limits a URL sets for itself, never above the operator's own.
@Suite("imgproxy's security options")
struct SecurityOptionsTests {
    static let source = try! TestImages.texture(width: 200, height: 100, format: .png)

    static func size(_ reply: ProxyFixture.Reply) throws -> [Int] {
        let image = try VipsDecoder().decode(reply.body, thumbnail: nil, maximumPixels: .max)
        return [image.width, image.height]
    }

    @Test(arguments: ["mrd:50", "max_result_dimension:50", "msr:1", "msfs:100", "maf:2", "mafr:1"])
    func refusedUnlessTheOperatorAllowsThem(_ option: String) async throws {
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.png", .image(Self.source))
            let reply = try await fixture.get(fixture.path("/a.png", option))
            #expect(reply.status == 403, "\(reply.text)")
            #expect(reply.text.contains("IMGPROXY_ALLOW_SECURITY_OPTIONS"))
            #expect(fixture.origin.statistics(for: "/a.png").requests == 0)
        }
    }

    @Test func aURLLowersTheLimitsButNeverRaisesThem() async throws {
        let animation = try ImageEncoder().encode(TestImages.animation(width: 40, height: 30, frames: 3), as: .gif)
        try await withProxyFixture(configure: {
            $0.allowsSecurityOptions = true
            $0.maximumResultDimension = 120
        }) { fixture in
            fixture.origin.serve("/a.png", .image(Self.source))
            fixture.origin.serve("/clip.gif", .image(animation))
            // The result is scaled to fit, whatever made it that size.
            let size1 = try Self.size(try await fixture.get(fixture.path("/a.png", "rs:fit:150:150/mrd:50")))
            #expect(size1 == [50, 25])
            let size2 = try Self.size(try await fixture.get(fixture.path("/a.png", "rs:fit:150:150/pd:10/mrd:50")))
            #expect(size2 == [50, 28])
            // The operator's 120 holds over a URL's larger one, and without one.
            let size3 = try Self.size(try await fixture.get(fixture.path("/a.png", "rs:fit:400:400:1/mrd:1000")))
            #expect(size3 == [120, 60])
            let size4 = try Self.size(try await fixture.get(fixture.path("/a.png", "rs:fit:400:400:1")))
            #expect(size4 == [120, 60])
            // Sources over the URL's own limits: 422, as imgproxy answers.
            let tooLarge = try await fixture.get(fixture.path("/a.png", "s:50/msr:0.01"))
            #expect(tooLarge.status == 422, "\(tooLarge.text)")
            #expect(try await fixture.get(fixture.path("/a.png", "s:50/msr:0.03")).status == 200)
            #expect(try await fixture.get(fixture.path("/a.png", "s:50/msfs:100")).status == 422)
            #expect(try await fixture.get(fixture.path("/a.png", "s:50/msfs:10000000")).status == 200)
            #expect(try await fixture.get(fixture.path("/clip.gif", "s:20/maf:2")).status == 422)
            #expect(try await fixture.get(fixture.path("/clip.gif", "s:20/maf:3")).status == 200)
            #expect(try await fixture.get(fixture.path("/clip.gif", "s:20/mafr:0.001")).status == 422)
            // A result made under no limit is not served to a URL whose limit refuses its source.
            let unlimited = try await fixture.get(fixture.path("/a.png", "s:40"))
            #expect(unlimited.status == 200, "\(unlimited.text)")
            #expect(try await fixture.get(fixture.path("/a.png", "s:40/msfs:100")).status == 422)
        }
    }

    /// `auto_rotate:0`: the source as its file stores it, where `ar:1` (the default) turns it.
    @Test func autoRotateOffKeepsTheStoredOrientation() async throws {
        let photo = Array(try Data(contentsOf: Corpus.directory.appendingPathComponent("exif-orientation/Landscape_6.jpg")))
        try await withProxyFixture { fixture in
            fixture.origin.serve("/a.jpg", .image(photo))
            let upright = try Self.size(try await fixture.get(fixture.path("/a.jpg", "rs:fit:300:300")))
            let stored = try Self.size(try await fixture.get(fixture.path("/a.jpg", "rs:fit:300:300/ar:0")))
            #expect(upright[0] > upright[1], "Landscape_6 is a landscape once turned")
            #expect(stored == [upright[1], upright[0]])
        }
    }
}
