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

    /// The geometry keeps 16 bits a sample, level for level what it does to 8 bits (resampling
    /// within two levels of 8 bits); a filter narrows. Opaque, as a pixel too transparent for
    /// 8 bits to keep its colour keeps it in 16.
    @Test func geometryKeepsSixteenBits() throws {
        let (bytes, _) = try Self.source("rgb", width: 60, height: 40)
        var options = DecodingOptions()
        options.keepsHighDepth = true
        let kept = try VipsDecoder().decode(bytes, options: options)
        let eight = kept.narrowedToEightBits()
        let steps: [(any ImageProcessing, Int)] = [
            (ImageProcessors.Crop(.rectangle(x: 5, y: 3, width: 20, height: 11)), 0),
            (ImageProcessors.Rotate(degrees: 90)!, 0),
            (ImageProcessors.Flip(horizontal: true, vertical: true), 0),
            (ImageProcessors.Embed(width: 70, height: 44, x: 4, y: 2, background: Colour(red: 200, green: 10, blue: 0)), 0),
            (ImageProcessors.Resize(width: 24, height: 24, fit: .fill), 2),
            (ImageProcessors.Resize(width: 90, height: 60, fit: .fit, upscale: true), 2),
        ]
        for (step, tolerance) in steps {
            let deep = try step.process(kept)
            #expect(deep.sampleDepth == .sixteen, "\(step.identifier)")
            let shallow = try step.process(eight)
            #expect(deep.width == shallow.width && deep.height == shallow.height, "\(step.identifier)")
            let differences = zip(deep.narrowedToEightBits().pixels, shallow.pixels).map { abs(Int($0) - Int($1)) }
            #expect(differences.max() ?? 0 <= tolerance, "\(step.identifier): \(differences.max() ?? 0)")
        }
        // The canvas is the colour widened as libvips widens it: 200 becomes 51400.
        let canvas = try ImageProcessors.Embed(width: 70, height: 44, x: 4, y: 2, background: Colour(red: 200, green: 10, blue: 0)).process(kept)
        #expect(Array(Self.samples(canvas).prefix(4)) == [200 * 257, 10 * 257, 0, 65535])
        // The resampled levels are 16-bit ones, not 8-bit levels widened.
        let resized = try ImageProcessors.Resize(width: 24, height: 24, fit: .fill).process(kept)
        #expect(Self.samples(resized).contains { $0 % 257 != 0 })
        #expect(try ImageProcessors.GaussianBlur(sigma: 2).process(kept).sampleDepth == .eight)
    }

    /// Flattening onto a colour and laying a watermark (8 bits, widened) keep 16 bits a sample,
    /// within two levels of what they make of 8; placed and tiled marks alike.
    @Test func blendingKeepsSixteenBits() throws {
        let (bytes, _) = try Self.source("rgba", width: 60, height: 40)
        var options = DecodingOptions()
        options.keepsHighDepth = true
        let kept = try VipsDecoder().decode(bytes, options: options)
        let mark = ImageProcessors.Watermark.Mark(identifier: "test-mark", image: try VipsDecoder().decode(try TestImages.texture(width: 16, height: 12, format: .png), options: DecodingOptions()))
        let steps: [any ImageProcessing] = [
            ImageProcessors.Flatten(background: Colour(red: 30, green: 200, blue: 90)),
            ImageProcessors.Watermark(mark: mark, opacity: 0.5, position: .placed(.centre)),
            ImageProcessors.Watermark(mark: mark, opacity: 0.7, position: .tiled(spacingX: 2, spacingY: 2)),
        ]
        for step in steps {
            let deep = try step.process(kept)
            #expect(deep.sampleDepth == .sixteen, "\(step.identifier)")
            let narrowed = deep.narrowedToEightBits(), shallow = try step.process(kept.narrowedToEightBits())
            var worst = 0
            for pixel in stride(from: 0, to: shallow.pixels.count, by: 4) where shallow.pixels[pixel + 3] >= 128 {
                for band in 0..<4 { worst = max(worst, abs(Int(narrowed.pixels[pixel + band]) - Int(shallow.pixels[pixel + band]))) }
            }
            #expect(worst <= 2, "\(step.identifier): \(worst)")
        }
        // A flattened image is opaque, at 16 bits.
        let flat = try ImageProcessors.Flatten(background: .white).process(kept)
        #expect(flat.isOpaque && !kept.isOpaque)
        // A translucent background narrows.
        #expect(try ImageProcessors.Flatten(background: Colour(red: 0, green: 0, blue: 0, alpha: 128)).process(kept).sampleDepth == .eight)
    }

    /// Transparent pixels are resampled premultiplied at 16 bits as at 8: where alpha is high
    /// enough for 8 bits to keep the colour, the two agree within two levels.
    @Test func transparencyIsResampledAlike() throws {
        let (bytes, _) = try Self.source("rgba", width: 60, height: 40)
        var options = DecodingOptions()
        options.keepsHighDepth = true
        let kept = try VipsDecoder().decode(bytes, options: options)
        let resize = ImageProcessors.Resize(width: 24, height: 24, fit: .fill)
        let deep = try resize.process(kept).narrowedToEightBits(), shallow = try resize.process(kept.narrowedToEightBits())
        var compared = 0
        for pixel in stride(from: 0, to: shallow.pixels.count, by: 4) where shallow.pixels[pixel + 3] >= 128 {
            for band in 0..<4 { #expect(abs(Int(deep.pixels[pixel + band]) - Int(shallow.pixels[pixel + band])) <= 2) }
            compared += 1
        }
        #expect(compared > 100)
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
            // A layout (the decode scales on load) keeps the depth; a blur after it does not.
            var layout = Layout()
            layout.width = 4
            layout.height = 3
            layout.resizing = .fill
            var processed = deep
            processed.processors = [ImageProcessors.Layout(layout)]
            let laidOut = try await fixture.pipeline.image(for: processed).container.image
            #expect(laidOut.sampleDepth == .sixteen && laidOut.width == 4 && laidOut.height == 3)
            processed.processors.append(ImageProcessors.GaussianBlur(sigma: 1))
            let blurred = try await fixture.pipeline.image(for: processed).container.image
            #expect(blurred.sampleDepth == .eight && blurred.width == 4)
        }
    }
}
