import Foundation
@testable import Magpie
import MagpieTesting
import Testing

@Suite("Animations through the pipeline")
struct AnimationPipelineTests {
    static let moon = Corpus.directory.appendingPathComponent("image-gif/samples/moon_impact.gif")

    static func serveMoon(_ fixture: TestFixture) throws -> URL {
        fixture.server.serve("/moon.gif", .image(Array(try Data(contentsOf: moon))))
        return fixture.server.url("/moon.gif")
    }

    @Test("an animation loads with every frame, and the memory cache counts them all")
    func theMemoryCacheCountsEveryFrame() async throws {
        try await withTestFixture { fixture in
            let url = try Self.serveMoon(fixture)
            let response = try await fixture.pipeline.image(for: ImageRequest(url: url))
            #expect(response.container.frameCount == 14)
            #expect(response.container.animation?.loopCount == 11)
            #expect(fixture.pipeline.memoryCache?.totalCost == 116 * 100 * 4 * 14)
            let again = try await fixture.pipeline.image(for: ImageRequest(url: url))
            #expect(again.source == .memory && again.image.frameCount == 14)
        }
    }

    @Test("the first frame only is a still cached apart from the animation, from one download")
    func firstFrameOnlyIsCachedApart() async throws {
        try await withTestFixture { fixture in
            let url = try Self.serveMoon(fixture)
            let still = try await fixture.pipeline.image(for: ImageRequest(url: url, options: [.firstFrameOnly]))
            #expect(still.image.frameCount == 1 && still.image.firstFrameReason == .requested)
            let animated = try await fixture.pipeline.image(for: ImageRequest(url: url))
            #expect(animated.image.frameCount == 14, "the still did not answer for the animation")
            #expect(animated.source == .disk)
            #expect(fixture.pipeline.memoryCache?.count == 2)
            #expect(fixture.server.statistics(for: "/moon.gif").requests == 1)
        }
    }

    @Test("an animation over the limits fails without being blocked or dropped from disk, and a request that allows it gets the first frame")
    func overTheLimitIsNotBlocklisted() async throws {
        try await withTestFixture(configure: { $0.maximumAnimationFrames = 10 }) { fixture in
            let url = try Self.serveMoon(fixture)
            await #expect {
                _ = try await fixture.pipeline.image(for: url)
            } throws: { error in
                guard case .animationTooLarge = error as? MagpieError else { return false }
                return true
            }
            let fallback = try await fixture.pipeline.image(for: ImageRequest(url: url, options: [.firstFrameWhenTooLarge]))
            #expect(fallback.image.frameCount == 1 && fallback.image.firstFrameReason == .overLimit)
            #expect(fallback.source == .disk, "the bytes stayed on disk")
            #expect(fixture.server.statistics(for: "/moon.gif").requests == 1)
        }
    }

    @Test("a processed animation is stored on disk as animated WebP and comes back animated")
    func animatedVariantsAreAnimatedWebP() async throws {
        try await withTestFixture(configure: { $0.diskCachePolicy = .variants }) { fixture in
            let url = try Self.serveMoon(fixture)
            let request = ImageRequest(url: url, processors: [.resize(width: 58, height: 58), .roundedCorners(radius: 8)])
            let first = try await fixture.pipeline.image(for: request)
            #expect(first.image.frameCount == 14 && first.image.width == 58)
            await fixture.pipeline.dataCache?.flush()
            let variant = try #require(RequestKeys(request, configuration: fixture.pipeline.configuration).variant)
            let stored = try #require(await fixture.pipeline.dataCache?.variantEntry(for: url.absoluteString, variant: variant))
            #expect(ImageFormat(sniffing: stored.data) == .webp)

            try await withImagePipeline(configuration: fixture.pipeline.configuration) { pipeline in
                let again = try await pipeline.image(for: request)
                #expect(again.source == .disk)
                // libwebp merges identical consecutive frames into one shown for their total
                // time (this GIF repeats its first and last frames), so compare what plays.
                let stored = try #require(again.container.animation), made = try #require(first.container.animation)
                #expect(stored.loopCount == made.loopCount)
                #expect(stored.cycleDuration == made.cycleDuration)
                #expect(again.image.frameCount > 1)
                var start = Duration.zero
                for (index, duration) in made.frameDurations.enumerated() {
                    let shown = again.container.frame(at: start + .milliseconds(1))
                    let difference = ImageDifference(shown, first.image.frame(index))
                    #expect(difference.meanColour < 3 && difference.meanAlpha < 3, "frame \(index) after the disk: \(difference)")
                    #expect(shown.pixel(x: 0, y: 0).alpha == 0, "rounded corners survive the disk")
                    start += duration
                }
            }
            #expect(fixture.server.statistics(for: "/moon.gif").requests == 1)
        }
    }
}
