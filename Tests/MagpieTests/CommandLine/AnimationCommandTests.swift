import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("magpie fetch with animations")
struct AnimationCommandTests {
    static func serveMoon(_ fixture: CLIFixture) throws -> String {
        let file = Corpus.directory.appendingPathComponent("image-gif/samples/moon_impact.gif")
        fixture.server.serve("/moon.gif", .image(Array(try Data(contentsOf: file))))
        return fixture.url("/moon.gif")
    }

    @Test(arguments: ["webp", "gif"])
    func anAnimationIsWrittenAnimated(_ format: String) async throws {
        try await withCLIFixture { fixture in
            let url = try Self.serveMoon(fixture)
            let folder = fixture.path("out")
            let result = try await fixture.magpie("fetch", url, "--process", "resize:58x58", "--format", format, "--output", folder, "--no-cache")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("58x50 14 frames"), "\(result.standardOutput)")
            let file = URL(fileURLWithPath: folder).appendingPathComponent("moon.\(format)")
            let written = try #require(try PillowAnimation.read([file]).first)
            #expect(written.size == [58, 50])
            #expect(written.plays == 11)
            // The 14 frames are 10 runs of identical ones. libwebp, and the GIF writer of libvips
            // from 8.16, merge a run into one frame that keeps the run's time; 8.14's GIF writer
            // keeps them apart. Either way no distinct frame is lost and the time is kept.
            #expect(written.durations.reduce(0, +) == 14 * 150)
            #expect((10...14).contains(written.frames), "\(written.frames) frames")
        }
    }

    @Test func aThumbnailOfAnAnimationDefaultsToAnimatedWebP() async throws {
        try await withCLIFixture { fixture in
            let url = try Self.serveMoon(fixture)
            let folder = fixture.path("out")
            let result = try await fixture.magpie("fetch", url, "--thumbnail", "64x64", "--output", folder, "--no-cache")
            #expect(result.status == 0, "\(result.standardError)")
            let file = URL(fileURLWithPath: folder).appendingPathComponent("moon.webp")
            #expect(try PillowAnimation.read([file]).first.map { $0.frames > 1 } == true)
        }
    }

    @Test func firstFrameWritesAStill() async throws {
        try await withCLIFixture { fixture in
            let url = try Self.serveMoon(fixture)
            let folder = fixture.path("out")
            let result = try await fixture.magpie(
                "fetch", "--json", url, "--first-frame", "--format", "webp", "--output", folder, "--no-cache")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(!result.standardOutput.contains("\"frames\""), "\(result.standardOutput)")
            let file = URL(fileURLWithPath: folder).appendingPathComponent("moon.webp")
            let written = try #require(try PillowAnimation.read([file]).first)
            #expect(written.frames == 1 && written.size == [116, 100])
        }
    }
}
