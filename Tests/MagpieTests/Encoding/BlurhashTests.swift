import Foundation
import Magpie
import MagpieTesting
import Testing

/// Magpie's BlurHash against PyPI's `blurhash`, on a photo-like gradient and flat colours.
@Suite struct BlurhashTests {
    static func reference(_ image: DecodedImage, _ x: Int, _ y: Int) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-blurhash-\(UUID().uuidString).rgba")
        try Data(image.pixels).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reference/blurhash_reference.py")
        let output = try PythonScript.run(script, [file.path, "\(image.width)", "\(image.height)", "\(x)", "\(y)"])
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let gradient: DecodedImage = {
        var pixels: [UInt8] = []
        for y in 0..<24 {
            for x in 0..<32 { pixels += [UInt8(x * 8), UInt8(y * 10), UInt8((x * y) % 256), 255] }
        }
        return DecodedImage(width: 32, height: 24, pixels: pixels)
    }()

    @Test(arguments: [(4, 3), (1, 1), (9, 9), (5, 2)])
    func matchesTheReferenceEncoder(x: Int, y: Int) throws {
        #expect(try Blurhash.encode(Self.gradient, componentsX: x, componentsY: y) == Self.reference(Self.gradient, x, y))
    }

    @Test func flatColoursAndBadComponentCounts() throws {
        let red = DecodedImage(width: 4, height: 4, pixels: Array([[UInt8]](repeating: [255, 0, 0, 255], count: 16).joined()))
        #expect(try Blurhash.encode(red) == Self.reference(red, 4, 3))
        #expect(throws: MagpieError.self) { try Blurhash.encode(red, componentsX: 0, componentsY: 3) }
        #expect(throws: MagpieError.self) { try Blurhash.encode(red, componentsX: 10, componentsY: 3) }
    }
}
