import Foundation
import Magpie
import MagpieTesting
import Testing

/// `StoredOrientation` (imgproxy's `auto_rotate:0`) gives back the pixels as the file stores
/// them: every EXIF orientation of the corpus's photos, compared with Pillow's decode, which
/// does not apply the orientation.
@Suite("Stored orientation")
struct StoredOrientationTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Reference/pillow_stored_pixels.py")

    @Test(arguments: ["Landscape", "Portrait"].flatMap { shape in (0...8).map { "exif-orientation/\(shape)_\($0).jpg" } })
    func undoesTheOrientationTheDecoderApplied(_ path: String) throws {
        let file = Corpus.directory.appendingPathComponent(path)
        let upright = try VipsDecoder().decode(Array(try Data(contentsOf: file)), thumbnail: nil, maximumPixels: .max)
        let stored = try ImageProcessors.StoredOrientation().process(upright)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-stored-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: output) }
        _ = try PythonScript.run(Self.script, [file.path, output.path])
        let pillow = try VipsDecoder().decode(Array(try Data(contentsOf: output)), thumbnail: nil, maximumPixels: .max)
        try #require(stored.width == pillow.width && stored.height == pillow.height, "\(stored.width)x\(stored.height), Pillow's \(pillow.width)x\(pillow.height)")
        let difference = ImageDifference(stored, pillow)
        #expect(difference.meanColour < 1.5, "\(path): \(difference)")
    }
}
