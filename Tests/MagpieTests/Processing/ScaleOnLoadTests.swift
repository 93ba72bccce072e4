import Foundation
import Magpie
import MagpieTesting
import NIOConcurrencyHelpers
import Testing

/// Passes decodes to ``VipsDecoder`` and remembers what each was asked for and gave.
final class RecordingDecoder: ImageDecoding {
    struct Decode: Sendable {
        /// The size a reduced decode was to leave twice of.
        let reducedToward: DecodedImage.Size?
        let width: Int
        let height: Int
    }

    private let decoder = VipsDecoder()
    private let decodes = NIOLockedValueBox([Decode]())

    var recorded: [Decode] { decodes.withLockedValue { $0 } }

    func decode(_ data: [UInt8], thumbnail: ImageRequest.Thumbnail?, maximumPixels: Int) throws(MagpieError) -> DecodedImage {
        try decode(data, options: DecodingOptions(thumbnail: thumbnail, maximumPixels: maximumPixels))
    }

    func decode(_ data: [UInt8], options: DecodingOptions) throws(MagpieError) -> DecodedImage {
        let image = try decoder.decode(data, options: options)
        let toward: DecodedImage.Size? = if case .reduced(let size) = options.target { size } else { nil }
        decodes.withLockedValue { $0.append(Decode(reducedToward: toward, width: image.width, height: image.height)) }
        return image
    }
}

/// A request whose processors begin by shrinking the image decodes a JPEG or WebP at a reduced
/// scale (issue 23), as imgproxy's scale-on-load does; the result matches resizing the whole
/// decode within resampling noise, at the same size.
///
/// Serialized: the decodes are seconds of synchronous work each (and heif-enc is waited for), and
/// run side by side they held both of Swift's cooperative threads on a two-core machine for tens of
/// seconds, starving the timing-sensitive suites that run beside them.
@Suite("Scale-on-load before a resize", .serialized)
struct ScaleOnLoadTests {
    static let decoder = VipsDecoder()
    static let limit = 100_000_000

    /// JPEGs upright and turned by EXIF (a real photo among them), and a WebP.
    static func sources() throws -> [(name: String, bytes: [UInt8])] {
        let texture = try TestImages.texture(width: 3000, height: 2000, seed: 11)
        let photo = try Corpus.entries.first { $0.path == "exif-orientation/Landscape_6.jpg" }.map { try $0.bytes() }
        let webp = try TestImages.texture(width: 2400, height: 1600, format: .webp, seed: 4)
        return [("jpeg", texture), ("jpeg turned by EXIF", TestImages.jpeg(texture, orientation: 6)),
                ("photo", try #require(photo)), ("webp", webp)]
    }

    /// How far the resize shrinks the smaller way: the reduced decode may go by a power of two
    /// up to this.
    static func scaleAllowed(_ resize: ImageProcessors.Resize, _ whole: DecodedImage) -> Double {
        var horizontal = Double(resize.width) / Double(whole.width), vertical = Double(resize.height) / Double(whole.height)
        switch resize.fit {
        case .fit: (horizontal, vertical) = (min(horizontal, vertical), min(horizontal, vertical))
        case .fill, .cover: (horizontal, vertical) = (max(horizontal, vertical), max(horizontal, vertical))
        case .exact: break
        case .crop: return 1
        }
        return min(1 / (2 * horizontal), 1 / (2 * vertical))
    }

    @Test(arguments: Fit.allCases)
    func aReducedDecodeResizesLikeTheWholeImage(_ fit: Fit) throws {
        for source in try Self.sources() {
            let whole = try Self.decoder.decode(source.bytes, options: DecodingOptions(maximumPixels: Self.limit))
            #expect(whole.fullSize == nil)
            for resize in [ImageProcessors.Resize(width: 300, height: 300, fit: fit), .init(width: 500, height: 180, fit: fit)] {
                let reduced = try Self.decoder.decode(source.bytes, options: DecodingOptions(target: .layout(resize.layout), maximumPixels: Self.limit))
                let expected = try resize.process(whole)
                let actual = try resize.process(reduced)
                let label = "\(source.name), \(resize.identifier)"
                if Self.scaleAllowed(resize, whole) >= 2 {
                    #expect(reduced.fullSize == DecodedImage.Size(width: whole.width, height: whole.height), "\(label)")
                    #expect(reduced.width < whole.width && reduced.height < whole.height, "\(label): decoded whole")
                    // The resize keeps at least twice its output to resample from.
                    #expect(reduced.width >= 2 * expected.width - 1 && reduced.height >= 2 * expected.height - 1, "\(label): \(reduced.width)x\(reduced.height)")
                } else {
                    #expect(reduced.fullSize == nil && reduced.width == whole.width, "\(label): reduced below twice the output")
                }
                #expect(actual.width == expected.width && actual.height == expected.height, "\(label)")
                guard actual.width == expected.width, actual.height == expected.height else { continue }
                let difference = ImageDifference(expected, actual)
                // Measured 0.3–1.6 on the noisy textures (the most at a margin just over 2), 0.4–0.8
                // on the photo; a wrong orientation, crop or scale moves tens of levels.
                #expect(difference.meanColour < 3, "\(label): \(difference)")
            }
        }
    }

    /// HEIF files with a 320 px embedded thumbnail, written by the system's `heif-enc`: HEVC
    /// (which the system's libheif decodes) and AVIF (libvips). The thumbnail is not used for a
    /// resize it would be large enough for: it is far from the whole image (measured 12 levels at
    /// 320 px, independently with Pillow on Debian's `vips` output; 5 after a resize to 100 px),
    /// which is no longer resampling noise.
    @Test(arguments: ["heic", "avif"])
    func aHEIFIsDecodedWholeEvenWithAThumbnail(_ kind: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-heif-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = Corpus.directory.appendingPathComponent("exif-orientation/Landscape_0.jpg").path
        let file = folder.appendingPathComponent("photo.\(kind)").path
        _ = try ChildProcess.run("heif-enc", ["-q", "60", "-t", "320"] + (kind == "avif" ? ["-A"] : []) + [photo, "-o", file])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        let whole = try Self.decoder.decode(bytes, options: DecodingOptions(maximumPixels: Self.limit))
        #expect(whole.width == 1800 && whole.height == 1200)
        let small = ImageProcessors.Resize(width: 100, height: 100)
        let decoded = try Self.decoder.decode(bytes, options: DecodingOptions(target: .layout(small.layout), maximumPixels: Self.limit))
        #expect(decoded.width == 1800 && decoded.fullSize == nil)
    }

    @Test func noReductionWhereTheResizeLeavesLessThanTwice() throws {
        let bytes = try TestImages.texture(width: 1200, height: 800, seed: 2)
        // 1200 to 700 leaves less than twice the output at any reduced scale.
        let image = try Self.decoder.decode(
            bytes, options: DecodingOptions(target: .layout(ImageProcessors.Resize(width: 700, height: 700).layout), maximumPixels: Self.limit))
        #expect(image.width == 1200 && image.fullSize == nil)
        // PNG has no scaled decode.
        let png = try ImageEncoder().encode(TestImages.pixels(width: 2000, height: 1000), as: .png)
        let whole = try Self.decoder.decode(
            png, options: DecodingOptions(target: .layout(ImageProcessors.Resize(width: 100, height: 100).layout), maximumPixels: Self.limit))
        #expect(whole.width == 2000 && whole.fullSize == nil)
    }

    @Test func thePipelineReducesOnlyWhenAResizeComesFirst() async throws {
        let recorder = RecordingDecoder()
        try await withTestFixture(configure: { $0.decoder = recorder }) { fixture in
            let bytes = try TestImages.texture(width: 3000, height: 2000, seed: 7)
            fixture.server.serve("/photo.jpg", .image(bytes))
            let url = fixture.server.url("/photo.jpg")
            let resize = ImageProcessors.Resize(width: 300, height: 300)
            let blur = ImageProcessors.GaussianBlur(sigma: 2)

            let resizedFirst = try await fixture.pipeline.image(for: ImageRequest(url: url, processors: [resize, blur]))
            let whole = try Self.decoder.decode(bytes, options: DecodingOptions(maximumPixels: Self.limit))
            let expected = try blur.process(resize.process(whole))
            #expect(resizedFirst.image.width == 300 && resizedFirst.image.height == 200)
            #expect(ImageDifference(expected, resizedFirst.image).meanColour < 1.5)
            // 3000 px for 300: decoded at 1/4, which leaves 2.5 times the output.
            #expect(recorder.recorded.last.map { ($0.reducedToward, $0.width) } ?? (nil, 0) == (DecodedImage.Size(width: 300, height: 200), 750))

            _ = try await fixture.pipeline.image(for: ImageRequest(url: url, processors: [blur, resize]))
            #expect(recorder.recorded.last.map { ($0.reducedToward, $0.width) } ?? (DecodedImage.Size(width: 1, height: 1), 0) == (nil, 3000))
            #expect(recorder.recorded.count == 2, "the two requests decode differently, so neither shares the other's decode")
        }
    }

    /// A layout the decoder already made the size it asks for hands on a bitmap that is the
    /// layout's: a resize after it sizes its output from that bitmap, not from the whole source
    /// (it used to, and failed: imgproxy's `max_result_dimension` after a shrink-on-load decode).
    @Test func aResizeAfterALayoutMadeOnLoadSizesFromTheLayoutsOutput() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/photo.jpg", .image(try TestImages.texture(width: 2000, height: 1000, seed: 3)))
            var layout = Layout()
            layout.width = 250
            let processors: [any ImageProcessing] = [
                ImageProcessors.Layout(layout), ImageProcessors.Resize(width: 600, height: 600, fit: .fit, upscale: false),
            ]
            let unchanged = try await fixture.pipeline.image(for: ImageRequest(url: fixture.server.url("/photo.jpg"), processors: processors))
            #expect(unchanged.image.width == 250 && unchanged.image.height == 125)
            let smaller: [any ImageProcessing] = [ImageProcessors.Layout(layout), ImageProcessors.Resize(width: 100, height: 100, fit: .fit, upscale: false)]
            let fitted = try await fixture.pipeline.image(for: ImageRequest(url: fixture.server.url("/photo.jpg"), processors: smaller))
            #expect(fitted.image.width == 100 && fitted.image.height == 50)
        }
    }
}
