import Foundation
import Magpie
import MagpieTesting
import Testing

// The Animated images article's snippets, compiled and run.
func describe(_ response: ImageResponse) -> String {
    let container = response.container
    guard let animation = container.animation else { return "a still" }
    let plays = animation.loopCount == 0 ? "forever" : "\(animation.loopCount) times"
    return "\(container.frameCount) frames of \(container.canvasSize.width)×\(container.canvasSize.height), "
        + "\(animation.cycleDuration) a cycle, playing \(plays)"
}

func frameOnScreen(_ response: ImageResponse, after time: Duration) -> DecodedImage {
    response.container.frame(at: time)
}

func preview(of url: URL) -> ImageRequest {
    // The first frame when the animation is over the limits, instead of an error.
    ImageRequest(url: url, thumbnail: .init(width: 320, height: 320), options: [.firstFrameWhenTooLarge])
}

func poster(of url: URL) -> ImageRequest {
    // Never more than the first frame (SDWebImage's decodeFirstFrameOnly).
    ImageRequest(url: url, options: [.firstFrameOnly])
}

func animatedThumbnail(_ image: DecodedImage) throws(MagpieError) -> [UInt8] {
    try ImageEncoder(quality: 80).encode(image, as: .webp)
}

func webpThumbnail(ofGIF data: [UInt8]) throws(MagpieError) -> [UInt8] {
    let options = DecodingOptions(thumbnail: .init(width: 128, height: 128), decodesAllFrames: true)
    return try ImageEncoder(quality: 80).encode(decoding: data, options: options, as: .webp)
}

@Suite("Animated images article")
struct AnimationArticleTests {
    @Test func theSnippetsDoWhatTheArticleSays() async throws {
        let clip = try ImageEncoder().encode(TestImages.panningClip(width: 120, height: 80, frames: 6, delay: 50), as: .gif)
        try await withTestFixture { fixture in
            fixture.server.serve("/clip.gif", .image(clip))
            let url = fixture.server.url("/clip.gif")
            let response = try await fixture.pipeline.image(for: ImageRequest(url: url))
            #expect(describe(response) == "6 frames of 120×80, 0.3 seconds a cycle, playing forever")
            #expect(frameOnScreen(response, after: .milliseconds(120)).pixels == response.image.frame(2).pixels)

            let still = try await fixture.pipeline.image(for: poster(of: url))
            #expect(describe(still) == "a still")
            let small = try await fixture.pipeline.image(for: preview(of: url))
            #expect(small.container.frameCount == 6, "under the limits, the preview is animated")

            let webp = try animatedThumbnail(response.image)
            let back = try VipsDecoder().decode(webp, options: DecodingOptions(decodesAllFrames: true))
            #expect(back.frameCount == 6 && back.animation == response.image.animation)

            let thumbnail = try VipsDecoder().decode(try webpThumbnail(ofGIF: clip), options: DecodingOptions(decodesAllFrames: true))
            #expect((thumbnail.width, thumbnail.height, thumbnail.frameCount) == (120, 80, 6), "fitted into the box, never enlarged")
            #expect(thumbnail.animation == response.image.animation)
        }
    }
}
