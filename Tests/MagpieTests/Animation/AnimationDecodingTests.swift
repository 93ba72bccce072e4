import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("Animation decoding")
struct AnimationDecodingTests {
    static let animatedCorpus = Corpus.entries.filter { entry in
        (entry.frames ?? 1) > 1 && ["gif", "webp"].contains(entry.format)
    }
    let decoder = VipsDecoder()

    func decodeAll(_ bytes: [UInt8], thumbnail: ImageRequest.Thumbnail? = nil) throws -> DecodedImage {
        try decoder.decode(bytes, options: DecodingOptions(thumbnail: thumbnail, decodesAllFrames: true))
    }

    @Test("every animated GIF and WebP in the corpus decodes to the manifest's frame count", arguments: animatedCorpus)
    func corpusFrameCounts(_ entry: Corpus.Entry) throws {
        let image = try decodeAll(try entry.bytes())
        #expect(image.frameCount == entry.frames)
        #expect(image.width == entry.width && image.height == entry.height, "the canvas size")
        #expect(image.pixels.count == image.width * image.height * 4 * image.frameCount)
        #expect(image.firstFrameReason == nil)
    }

    @Test func theCorpusHasAnimationsToTest() {
        #expect(Self.animatedCorpus.count >= 10)
    }

    @Test("delays and loop counts agree with Pillow's, including 0 ms and 10 ms delays and a finite loop")
    func timingAgreesWithPillow() throws {
        let paths = [
            "image-gif/samples/moon_impact.gif",  // loop extension "repeat 10"
            "image-gif/samples/beacon.gif",  // 0 ms delays
            "image-gif/samples/anim-gr.gif",  // 10 ms and 100 s
            "image-gif/samples/gifplayer-muybridge.gif",
            "image-rs/images/webp/extended_images/anim.webp",
            "image-webp/animated/random_lossy.webp",
        ]
        let files = paths.map { Corpus.directory.appendingPathComponent($0) }
        let references = try PillowAnimation.read(files)
        #expect(references.count == paths.count)
        for (file, reference) in zip(files, references) {
            let image = try decodeAll(Array(try Data(contentsOf: file)))
            let animation = try #require(image.animation, "\(file.lastPathComponent) is animated")
            #expect(animation.frameDelays == reference.durations, "\(file.lastPathComponent)")
            #expect(animation.loopCount == reference.plays, "\(file.lastPathComponent)")
        }
    }

    @Test func delaysOfTenMillisecondsOrLessPlayAsOneHundred() throws {
        let beacon = try decodeAll(try Corpus.directory.appendingPathComponent("image-gif/samples/beacon.gif").bytes())
        #expect(beacon.animation?.frameDelays == [0, 0])
        #expect(beacon.animation?.frameDurations == [.milliseconds(100), .milliseconds(100)])
        let animation = Animation(frameDelays: [10, 11, 0, 250], loopCount: 0)
        #expect(animation.frameDurations == [.milliseconds(100), .milliseconds(11), .milliseconds(100), .milliseconds(250)])
    }

    @Test func theFrameOnScreenFollowsTheDurationsAndTheLoopCount() {
        let forever = Animation(frameDelays: [100, 200, 0], loopCount: 0)  // plays 100, 200, 100 = 400 ms
        #expect(forever.frameIndex(at: .zero) == 0)
        #expect(forever.frameIndex(at: .milliseconds(99)) == 0)
        #expect(forever.frameIndex(at: .milliseconds(100)) == 1)
        #expect(forever.frameIndex(at: .milliseconds(299)) == 1)
        #expect(forever.frameIndex(at: .milliseconds(300)) == 2)
        #expect(forever.frameIndex(at: .milliseconds(400)) == 0)
        #expect(forever.frameIndex(at: .seconds(4000) + .milliseconds(150)) == 1)
        let twice = Animation(frameDelays: [100, 200, 0], loopCount: 2)
        #expect(twice.frameIndex(at: .milliseconds(500)) == 1, "second play")
        #expect(twice.frameIndex(at: .milliseconds(800)) == 2, "stopped on the last frame")
        #expect(twice.frameIndex(at: .seconds(60)) == 2)
    }

    @Test func aContainerHandsOutFramesAndTheFrameAtATime() throws {
        let bytes = try Corpus.directory.appendingPathComponent("image-gif/samples/moon_impact.gif").bytes()
        let container = ImageContainer(image: try decodeAll(bytes))
        #expect(container.frameCount == 14)
        #expect(container.canvasSize == (116, 100))
        let frames = container.frames
        #expect(frames.count == 14)
        #expect(frames.allSatisfy { $0.duration == .milliseconds(150) && !$0.image.isAnimated })
        #expect(frames[3].image.pixels == Array(container.image.pixels[3 * 116 * 100 * 4..<4 * 116 * 100 * 4]))
        #expect(container.frame(at: .milliseconds(460)).pixels == frames[3].image.pixels)
    }

    @Test func firstFrameOnlyDecodesAStillAndSaysWhy() throws {
        let bytes = try Corpus.directory.appendingPathComponent("image-gif/samples/moon_impact.gif").bytes()
        let still = try decoder.decode(bytes, options: DecodingOptions(decodesAllFrames: false))
        #expect(still.frameCount == 1 && still.animation == nil)
        #expect(still.firstFrameReason == .requested)
        let all = try decodeAll(bytes)
        #expect(still.pixels == all.frame(0).pixels, "the first frame of the animation")
    }

    @Test("a thumbnail of an animation shrinks every frame")
    func thumbnailsShrinkEveryFrame() throws {
        let bytes = try Corpus.directory.appendingPathComponent("image-gif/samples/gifplayer-muybridge.gif").bytes()
        let image = try decodeAll(bytes, thumbnail: .init(width: 100, height: 100))
        #expect(image.frameCount == 380)
        #expect(image.width == 100 && image.height == 63)
        #expect(image.animation?.frameDelays.first == 360)
        let filled = try decodeAll(bytes, thumbnail: .init(width: 64, height: 64, fit: .fill))
        #expect(filled.width == 64 && filled.height == 64 && filled.frameCount == 380)
    }

    @Test("APNG decodes as its first frame, and says its format cannot be animated here")
    func apngIsAStill() throws {
        let entry = try #require(Corpus.entries.first { $0.path == "image-png/animated/basic_f20.png" })
        let image = try decodeAll(try entry.bytes())
        #expect(image.frameCount == 1)
        #expect(image.firstFrameReason == .formatNotAnimated)
        #expect(image.width == entry.width && image.height == entry.height)
    }

    // MARK: - Limits

    /// The message of the ``MagpieError/animationTooLarge(_:)`` that decoding every frame of
    /// `bytes` throws; `nil` when it decodes or fails otherwise.
    func refusal(of bytes: [UInt8]) -> String? {
        do {
            _ = try decodeAll(bytes)
        } catch MagpieError.animationTooLarge(let message) {
            return message
        } catch {}
        return nil
    }

    @Test("an animation of thousands of frames is refused from its header")
    func thousandsOfFramesAreRefused() throws {
        let message = try #require(refusal(of: TestImages.gifBomb(width: 4, height: 4, frames: 3000)))
        #expect(message.contains("3000 frames") && message.contains("limit of 1000"), "\(message)")
    }

    @Test("an animation whose frames multiply past the pixel limit is refused from its header")
    func framesMultiplyingPastThePixelLimitAreRefused() throws {
        // 40 frames of 2000x2000: each frame is allowed, all of them (160 MP) are not.
        let bytes = TestImages.gifBomb(width: 2000, height: 2000, frames: 40)
        let message = try #require(refusal(of: bytes))
        #expect(message.contains("160000000 pixels"), "\(message)")
        var options = DecodingOptions(decodesAllFrames: true, maximumAnimationPixels: 500_000_000)
        options.maximumAnimationFrames = 30
        #expect(throws: MagpieError.self) { try decoder.decode(bytes, options: options) }
    }

    @Test("an animation over the limits decodes as its first frame when the request allows it")
    func overTheLimitFallsBackToTheFirstFrame() throws {
        let bytes = try Corpus.directory.appendingPathComponent("image-gif/samples/moon_impact.gif").bytes()
        let options = DecodingOptions(decodesAllFrames: true, maximumAnimationFrames: 10, firstFrameWhenTooLarge: true)
        let image = try decoder.decode(bytes, options: options)
        #expect(image.frameCount == 1)
        #expect(image.firstFrameReason == .overLimit)
    }

    // MARK: - Truncation

    @Test("a GIF cut short keeps its whole frames, as Pillow reads them")
    func truncatedGIFKeepsWholeFrames() throws {
        let file = Corpus.directory.appendingPathComponent("image-gif/samples/gifplayer-muybridge.gif")
        let cut = Array(try file.bytes().prefix(180_000))
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-cut-\(UUID().uuidString).gif")
        try Data(cut).write(to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let image = try decodeAll(cut)
        // Pillow stops at the first frame it cannot finish.
        let wholeFrames = try PillowAnimation.wholeFrames(copy)
        #expect(image.frameCount == wholeFrames)
        #expect(image.frameCount > 200 && image.frameCount < 380)
    }

    /// As browsers show it: a still of what arrived (LenientGIFTests compares such rows with
    /// Pillow's), not an error and not an animation.
    @Test("a GIF whose first frame is cut off shows what arrived of it")
    func gifWithoutAWholeFrameShowsWhatArrived() throws {
        let file = Corpus.directory.appendingPathComponent("image-gif/samples/gifplayer-muybridge.gif")
        let image = try decodeAll(Array(try file.bytes().prefix(600)))
        #expect((image.width, image.height, image.frameCount) == (472, 298, 1))
    }
}

extension URL {
    fileprivate func bytes() throws -> [UInt8] { Array(try Data(contentsOf: self)) }
}
