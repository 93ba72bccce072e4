import Foundation
import Magpie
import MagpieTesting
import Testing

/// An animated WebP's frames come from libwebp's own animation decoder (the shim's
/// `webp_frames.c`), not libvips' loader: the same frames, composed as libwebp composes them,
/// in less than half the time. Pillow, which also reads animated WebP with libwebp's
/// `WebPAnimDecoder`, is the reference (Tests/Reference/pillow_webp_frames.py). A file with a
/// colour profile still goes through libvips, which converts it to sRGB.
@Suite("WebP frames")
struct WebPFrameTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Reference/pillow_webp_frames.py")
    static let animatedCorpus = Corpus.entries.filter { ($0.frames ?? 1) > 1 && $0.format == "webp" }

    static func made() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-webp-frames-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try PythonScript.run(script, ["make", folder.path])
        return folder
    }

    static func decodeAll(_ bytes: [UInt8], thumbnail: ImageRequest.Thumbnail? = nil) throws -> DecodedImage {
        try VipsDecoder().decode(bytes, options: DecodingOptions(thumbnail: thumbnail, decodesAllFrames: true))
    }

    @Test(arguments: ["blended", "lossy"])
    func framesAreLibwebpsOwn(_ name: String) throws {
        let folder = try Self.made()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = try Self.decodeAll(Array(try Data(contentsOf: folder.appendingPathComponent("\(name).webp"))))
        let reference = Array(try Data(contentsOf: folder.appendingPathComponent("\(name).rgba")))
        #expect(image.frameCount == 6 && image.width == 48 && image.height == 36)
        #expect(image.pixels == reference, "\(name): \(ImageDifference(rgba: image.pixels, reference))")
    }

    @Test(arguments: animatedCorpus)
    func corpusFramesAreLibwebpsOwn(_ entry: Corpus.Entry) throws {
        let file = Corpus.directory.appendingPathComponent(entry.path)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-webp-frames-\(UUID().uuidString).rgba")
        defer { try? FileManager.default.removeItem(at: output) }
        _ = try PythonScript.run(Self.script, ["frames", file.path, output.path])
        let image = try Self.decodeAll(try entry.bytes())
        let reference = Array(try Data(contentsOf: output))
        #expect(image.pixels == reference, "\(entry.path): \(ImageDifference(rgba: image.pixels, reference))")
    }

    /// The frames a thumbnail is made from are the same: each is libwebp's frame, resized.
    @Test func aThumbnailResizesTheSameFrames() throws {
        let folder = try Self.made()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = Array(try Data(contentsOf: folder.appendingPathComponent("blended.webp")))
        let thumbnail = try Self.decodeAll(bytes, thumbnail: .init(width: 24, height: 24))
        let whole = try Self.decodeAll(bytes)
        let resized = try ImageProcessors.Resize(width: 24, height: 24).process(whole)
        #expect(thumbnail.frameCount == 6 && (thumbnail.width, thumbnail.height) == (24, 18))
        #expect(ImageDifference(thumbnail, resized).maximum <= 1, "\(ImageDifference(thumbnail, resized))")
    }

    @Test func aProfiledAnimationIsConvertedToSRGB() throws {
        let folder = try Self.made()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = try Self.decodeAll(Array(try Data(contentsOf: folder.appendingPathComponent("wide.webp"))))
        let converted = Array(try Data(contentsOf: folder.appendingPathComponent("wide.srgb.rgba")))
        let raw = Array(try Data(contentsOf: folder.appendingPathComponent("wide.rgba")))
        #expect(image.frameCount == 4)
        #expect(ImageDifference(rgba: image.pixels, converted).maximum <= 2, "\(ImageDifference(rgba: image.pixels, converted))")
        // The profile matters: the same numbers read as sRGB are far from the reference.
        #expect(ImageDifference(rgba: raw, converted).maximum > 10)
    }
}
