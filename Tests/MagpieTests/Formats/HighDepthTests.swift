import Foundation
import Magpie
import MagpieTesting
import Testing

/// Sources with 16 bits a sample kept at 16 when a request asks (``ImageRequest/Options/keepsHighDepth``),
/// checked against 16-bit PNGs written and read by Tests/Reference/png16.py with zlib alone.
@Suite("High depth: 16 bits a sample")
struct HighDepthTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Reference/png16.py")

    struct Reading: Decodable {
        let bit_depth: Int
        let colour_type: Int
        let width: Int
        let height: Int
        let samples: [Int]
    }

    /// A 16-bit PNG of `colour` (rgba, rgb, grey) made by the script, and what it holds.
    static func source(_ colour: String, width: Int = 7, height: Int = 5) throws -> (bytes: [UInt8], reading: Reading) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-png16-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try PythonScript.run(script, ["write", file.path, "\(width)", "\(height)", colour])
        let bytes = Array(try Data(contentsOf: file))
        return (bytes, try read(bytes))
    }

    static func read(_ png: [UInt8]) throws -> Reading {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-png16-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(png).write(to: file)
        return try JSONDecoder().decode(Reading.self, from: try PythonScript.run(script, ["read", file.path]))
    }

    /// The image's samples as numbers, RGBA.
    static func samples(_ image: DecodedImage) -> [Int] {
        guard image.sampleDepth == .sixteen else { return image.pixels.map(Int.init) }
        return image.pixels.withUnsafeBytes { bytes in
            (0..<image.pixels.count / 2).map { Int(bytes.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) }
        }
    }

    /// `reading`'s samples as RGBA: grey replicated, opaque alpha added.
    static func rgba(_ reading: Reading) -> [Int] {
        let channels = [0: 1, 2: 3, 6: 4][reading.colour_type]!
        var out: [Int] = []
        for pixel in stride(from: 0, to: reading.samples.count, by: channels) {
            let values = Array(reading.samples[pixel..<pixel + channels])
            switch channels {
            case 1: out += [values[0], values[0], values[0], 65535]
            case 3: out += values + [65535]
            default: out += values
            }
        }
        return out
    }

    @Test(arguments: ["rgba", "rgb", "grey"])
    func aDeepSourceKeepsEverySample(_ colour: String) throws {
        let (bytes, reading) = try Self.source(colour)
        var options = DecodingOptions()
        options.keepsHighDepth = true
        let kept = try VipsDecoder().decode(bytes, options: options)
        #expect(kept.sampleDepth == .sixteen)
        #expect(kept.width == 7 && kept.height == 5 && kept.bytesPerRow == 7 * 8)
        #expect(Self.samples(kept) == Self.rgba(reading))
        // Without asking, the same source is 8 bits a sample, as libvips narrows it; narrowing
        // the kept image gives the same bytes.
        let eight = try VipsDecoder().decode(bytes, options: DecodingOptions())
        #expect(eight.sampleDepth == .eight)
        #expect(Self.samples(eight) == Self.rgba(reading).map { $0 >> 8 })
        #expect(kept.narrowedToEightBits().pixels == eight.pixels)
        #expect(kept.pixel(x: 1, y: 0) == eight.pixel(x: 1, y: 0))
    }

    /// An 8-bit source stays 8 bits, asked or not.
    @Test func anEightBitSourceStaysEightBits() throws {
        var options = DecodingOptions()
        options.keepsHighDepth = true
        let png = try TestImages.texture(width: 9, height: 6, format: .png)
        #expect(try VipsDecoder().decode(png, options: options).sampleDepth == .eight)
    }

    /// PNG and TIFF are written with 16 bits a sample, every sample as it was; the other
    /// formats get the narrowed image.
    @Test func pngAndTIFFAreWrittenWithSixteenBits() throws {
        let (bytes, reading) = try Self.source("rgba")
        var options = DecodingOptions()
        options.keepsHighDepth = true
        let kept = try VipsDecoder().decode(bytes, options: options)
        let png = try ImageEncoder().encode(kept, as: .png)
        let written = try Self.read(png)
        #expect(written.bit_depth == 16 && written.colour_type == 6)
        #expect(written.samples == reading.samples)
        let tiff = try ImageEncoder().encode(kept, as: .tiff)
        let back = try VipsDecoder().decode(tiff, options: options)
        #expect(back.sampleDepth == .sixteen)
        #expect(back.pixels == kept.pixels)
        for format in [ImageFormat.jpeg, .webp, .gif, .avif] {
            let encoded = try ImageEncoder().encode(kept, as: format)
            let decoded = try VipsDecoder().decode(encoded, options: options)
            #expect(decoded.sampleDepth == .eight && decoded.width == 7, "\(format)")
        }
        // An 8-bit image is written with 8, as before.
        #expect(try Self.read(try ImageEncoder().encode(kept.narrowedToEightBits(), as: .png)).bit_depth == 8)
    }

    /// Through the pipeline: kept without processors, narrowed by a processor, and cached apart
    /// from the same URL's 8-bit image.
    @Test func thePipelineKeepsDepthWhenAsked() async throws {
        let (bytes, reading) = try Self.source("rgb")
        try await withTestFixture { fixture in
            fixture.server.serve("/deep.png", .image(bytes))
            let url = fixture.server.url("/deep.png")
            var deep = ImageRequest(url: url)
            deep.options.insert(.keepsHighDepth)
            let kept = try await fixture.pipeline.image(for: deep).container.image
            #expect(kept.sampleDepth == .sixteen)
            #expect(Self.samples(kept) == Self.rgba(reading))
            let plain = try await fixture.pipeline.image(for: url)
            #expect(plain.sampleDepth == .eight)
            #expect(try await fixture.pipeline.image(for: deep).container.image.sampleDepth == .sixteen)
            var processed = deep
            processed.processors = [ImageProcessors.Resize(width: 4, height: 4, fit: .fit)]
            let resized = try await fixture.pipeline.image(for: processed).container.image
            #expect(resized.sampleDepth == .eight && resized.width == 4)
        }
    }
}
