import Foundation
@testable import Magpie
import MagpieTesting
import Testing

/// `ImageEncoder.encode(decoding:options:as:)` (issue 38): an animation going to WebP or GIF is
/// encoded while its frames are decoded and resized, and the bytes are the ones the two steps
/// one after the other write, for every path a frame takes through the shim. Small clips, so
/// the Thread Sanitizer stage runs these; the corpus is `RenderEncodingCorpusTests`'.
@Suite("Encoding while decoding")
struct RenderEncodingTests {
    /// The two steps, then the one: the same bytes, and the one step did encode alongside.
    static func expectSameBytes(_ data: [UInt8], _ options: DecodingOptions, as format: ImageFormat, encoder: ImageEncoder = ImageEncoder(quality: 80)) throws {
        let apart = try encoder.encode(VipsDecoder().decode(data, options: options), as: format)
        let decoded = try VipsDecoder().decode(data, options: options, encodingAlongside: (encoder, format))
        let together = try #require(decoded.encoded, "the animation was encoded while it rendered")
        #expect(together == apart)
        #expect(try encoder.encode(decoding: data, options: options, as: format) == apart)
    }

    /// At its own size no frame is processed: the decoder's frames go straight to the encoder.
    @Test func aWholeSizeAnimation() throws {
        let clip = try ImageEncoder().encode(TestImages.panningClip(width: 96, height: 64, frames: 24), as: .gif)
        try Self.expectSameBytes(clip, DecodingOptions(decodesAllFrames: true), as: .webp)
        try Self.expectSameBytes(clip, DecodingOptions(decodesAllFrames: true), as: .webp, encoder: ImageEncoder(lossless: true))
    }

    /// Frames processed after the decode (an animation already in memory, resized by the
    /// processor) are not this path's: a still, a first frame, and a format without animation
    /// are encoded after the decode, as before.
    @Test func whatIsNotAnAnimationGoingToWebPOrGIFIsEncodedAfterwards() throws {
        let clip = try ImageEncoder().encode(TestImages.panningClip(width: 96, height: 64, frames: 12), as: .gif)
        let photo = try TestImages.texture(width: 160, height: 120, format: .jpeg)
        let cases: [([UInt8], DecodingOptions, ImageFormat)] = [
            (photo, DecodingOptions(), .webp),
            (clip, DecodingOptions(decodesAllFrames: false), .webp),
            (clip, DecodingOptions(decodesAllFrames: true), .png),
        ]
        for (data, options, format) in cases {
            let encoder = ImageEncoder(quality: 80)
            #expect(try VipsDecoder().decode(data, options: options, encodingAlongside: (encoder, format)).encoded == nil)
            let apart = try encoder.encode(VipsDecoder().decode(data, options: options), as: format)
            #expect(try encoder.encode(decoding: data, options: options, as: format) == apart)
        }
    }

    /// Bad input fails as the decode alone does, with nothing encoded and no thread left waiting.
    @Test func aFileThatFailsToDecodeFailsTheSameWay() throws {
        let clip = try ImageEncoder().encode(TestImages.panningClip(width: 96, height: 64, frames: 12), as: .gif)
        let options = DecodingOptions(thumbnail: .init(width: 32, height: 32), decodesAllFrames: true)
        for data in [Array(clip.prefix(20)), [UInt8](repeating: 7, count: 300), []] {
            let apart = Result { () throws(MagpieError) in try ImageEncoder().encode(VipsDecoder().decode(data, options: options), as: .webp) }
            let together = Result { () throws(MagpieError) in try ImageEncoder().encode(decoding: data, options: options, as: .webp) }
            // The same kind of failure. Not the same text: libvips keeps one error buffer for the
            // whole process, so a decode failing beside another can carry its message too.
            func kind(_ result: Result<[UInt8], MagpieError>) -> String? {
                guard case .failure(let error) = result else { return nil }
                return String("\(error)".prefix { $0 != ":" })
            }
            #expect(kind(together) != nil && kind(together) == kind(apart), "\(together) against \(apart)")
        }
    }
}

/// The same over the corpus's animations: long decodes that hold a thread, so they run with the
/// other pixel suites (scripts/test).
@Suite("Encoding while decoding, the corpus")
struct RenderEncodingCorpusTests {
    static let animatedCorpus = Corpus.entries.filter { entry in
        (entry.frames ?? 1) > 1 && ["gif", "webp"].contains(entry.format)
    }

    @Test("thumbnails of the corpus's animations, as WebP and as GIF", arguments: animatedCorpus)
    func thumbnailsOfTheCorpus(_ entry: Corpus.Entry) throws {
        let options = DecodingOptions(thumbnail: .init(width: 64, height: 64), decodesAllFrames: true)
        try RenderEncodingTests.expectSameBytes(try entry.bytes(), options, as: .webp)
        try RenderEncodingTests.expectSameBytes(try entry.bytes(), options, as: .gif)
    }

    /// A GIF cut short decodes to its whole frames (AnimationDecodingTests); the encoder
    /// following the render stops at the last of them too.
    @Test func aTruncatedAnimation() throws {
        let file = Corpus.directory.appendingPathComponent("image-gif/samples/gifplayer-muybridge.gif")
        let cut = Array(try Data(contentsOf: file).prefix(180_000))
        try RenderEncodingTests.expectSameBytes(cut, DecodingOptions(thumbnail: .init(width: 48, height: 48), decodesAllFrames: true), as: .webp)
    }
}
