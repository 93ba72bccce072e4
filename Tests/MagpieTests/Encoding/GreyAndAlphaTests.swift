import Foundation
import Magpie
import MagpieTesting
import Testing

/// Grey stays grey and alpha is written only where there is some, in the formats that can say
/// so (PNG and TIFF: grey, grey with alpha, RGB, RGBA; JPEG: one grey component), as imgproxy
/// writes a grey source. Read back by Tests/Reference/png16.py (PNG's colour type) and Pillow
/// (JPEG's mode).
@Suite("Grey stays grey, alpha only where there is some")
struct GreyAndAlphaTests {
    /// A 24x16 image, grey or coloured, opaque or with one transparent corner.
    static func image(grey: Bool, opaque: Bool, sampleDepth: DecodedImage.SampleDepth = .eight) -> DecodedImage {
        var samples: [UInt16] = []
        for y in 0..<16 {
            for x in 0..<24 {
                let level = UInt16(x * 8 + y * 3)
                let alpha: UInt16 = !opaque && x < 4 && y < 4 ? 40 : 255
                samples += [level, grey ? level : 255 - level, grey ? level : UInt16(y * 15), alpha]
            }
        }
        let bytes: [UInt8] = sampleDepth == .eight
            ? samples.map { UInt8($0) }
            : samples.flatMap { value -> [UInt8] in withUnsafeBytes(of: value * 257) { Array($0) } }
        return DecodedImage(width: 24, height: 16, pixels: bytes, sampleDepth: sampleDepth)
    }

    @Test(arguments: [(true, true, 0), (true, false, 4), (false, true, 2), (false, false, 6)])
    func pngWritesTheBandsThePixelsNeed(grey: Bool, opaque: Bool, colourType: Int) throws {
        for depth in [DecodedImage.SampleDepth.eight, .sixteen] {
            let image = Self.image(grey: grey, opaque: opaque, sampleDepth: depth)
            let png = try ImageEncoder().encode(image, as: .png)
            let reading = try HighDepthTests.read(png)
            #expect(reading.colour_type == colourType && reading.bit_depth == (depth == .eight ? 8 : 16), "grey \(grey), opaque \(opaque), \(depth)")
            // Nothing is lost: read back, every pixel is what was written.
            var options = DecodingOptions()
            options.keepsHighDepth = true
            let back = try VipsDecoder().decode(png, options: options)
            #expect(back.pixels == image.pixels)
            let tiff = try VipsDecoder().decode(try ImageEncoder().encode(image, as: .tiff), options: options)
            #expect(tiff.pixels == image.pixels)
        }
    }

    @Test func jpegWritesOneComponentForGrey() throws {
        let modes = try [true, false].map { grey in
            try Self.pillowMode(try ImageEncoder().encode(Self.image(grey: grey, opaque: true), as: .jpeg))
        }
        #expect(modes == ["L", "RGB"])
        // Transparent grey over a coloured background is no longer grey; over black it is.
        let transparent = Self.image(grey: true, opaque: false)
        #expect(try Self.pillowMode(try ImageEncoder(background: Colour(red: 255, green: 0, blue: 0)).encode(transparent, as: .jpeg)) == "RGB")
        #expect(try Self.pillowMode(try ImageEncoder().encode(transparent, as: .jpeg)) == "L")
    }

    static func pillowMode(_ bytes: [UInt8]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-mode-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(bytes).write(to: file)
        let output = try ChildProcess.run("python3", ["-c", "import sys; from PIL import Image; print(Image.open(sys.argv[1]).mode)", file.path])
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
