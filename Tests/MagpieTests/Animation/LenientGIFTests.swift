import Foundation
import Magpie
import MagpieTesting
import Testing

/// GIFs that browsers and Pillow show although they break the rules: a still whose data ends
/// early, and an animation without any colour table. Files and Pillow's reading of them come
/// from Tests/Reference/pillow_gif.py.
@Suite("Lenient GIF decoding")
struct LenientGIFTests {
    /// The interlaced still cut at 60%: the rows that arrived (the first passes) are Pillow's,
    /// the others transparent, as a browser leaves what has not been drawn.
    @Test func aStillCutShortShowsTheRowsThatArrived() throws {
        try withGIFs { folder in
            let full = try PillowGIF.read(folder.appendingPathComponent("still.gif"))
            let cut = try PillowGIF.read(folder.appendingPathComponent("cut.gif"))
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent("cut.gif")))
            let image = try VipsDecoder().decode(bytes, options: DecodingOptions(decodesAllFrames: true))
            #expect((image.width, image.height, image.frameCount) == (200, 150, 1))
            let rowBytes = 200 * 4
            func row(_ pixels: [UInt8], _ y: Int) -> ArraySlice<UInt8> { pixels[(y * rowBytes)..<((y + 1) * rowBytes)] }
            // Rows where Pillow's reading of the cut file equals the whole file's arrived.
            let arrived = (0..<150).filter { row(cut.pixels, $0) == row(full.pixels, $0) }
            try #require(arrived.count > 30 && arrived.count < 150, "the cut should leave some rows but not all: \(arrived.count)")
            for y in arrived {
                #expect(row(image.pixels, y) == row(full.pixels, y), "row \(y) arrived but differs")
            }
            for y in Set(0..<150).subtracting(arrived) {
                #expect(row(image.pixels, y).enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 0 }, "row \(y) never arrived but is drawn")
            }
            // Through the pipeline's own rules too: a whole decode of a truncated file is not an error here.
            #expect(try VipsDecoder().decode(bytes, thumbnail: .init(width: 100, height: 100), maximumPixels: 1_000_000).width == 100)
        }
    }

    /// Corrupt frame data that is all there is still refused: only a cut is forgiven.
    @Test func aStillWithCorruptDataIsStillRefused() throws {
        try withGIFs { folder in
            var bytes = Array(try Data(contentsOf: folder.appendingPathComponent("still.gif")))
            // The LZW minimum code size of the only frame, made impossible (over 11). Pillow
            // writes the global table, then the image descriptor.
            let descriptor = 13 + 3 << (Int(bytes[10] & 0x07) + 1)
            try #require(bytes[descriptor] == 0x2C && bytes[descriptor + 9] & 0x80 == 0)
            bytes[descriptor + 10] = 14
            #expect(throws: MagpieError.self) { try VipsDecoder().decode(bytes, options: DecodingOptions()) }
        }
    }

    /// No colour table anywhere: every frame plays, with index i drawn as grey (i, i, i), as
    /// Pillow reads it. libnsgif alone draws every index but 1 black, so most frames were blank.
    @Test func anAnimationWithoutColourTablesPlaysEveryFrame() throws {
        try withGIFs { folder in
            let file = folder.appendingPathComponent("no-table.gif")
            let reference = try PillowGIF.read(file)
            let image = try VipsDecoder().decode(Array(try Data(contentsOf: file)), options: DecodingOptions(decodesAllFrames: true))
            #expect((image.width, image.height, image.frameCount) == (64, 48, 5))
            #expect(reference.frames == 5)
            #expect(image.pixels == reference.pixels)
            // Each frame draws its rectangle in its own index: five different frames.
            #expect(Set((0..<5).map { image.frame($0).pixels }).count == 5)
        }
    }

    private func withGIFs(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-gifs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try PythonScript.run(PillowGIF.script, ["make", folder.path])
        try body(folder)
    }
}

/// Pillow's reading of a GIF: every frame as RGBA, one after another.
enum PillowGIF {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Reference/pillow_gif.py")

    struct Reading: Decodable {
        let frames: Int
        let width: Int
        let height: Int
        var pixels: [UInt8] = []

        private enum CodingKeys: String, CodingKey { case frames, width, height }
    }

    static func read(_ file: URL) throws -> Reading {
        let out = file.deletingPathExtension().appendingPathExtension("rgba")
        var reading = try JSONDecoder().decode(Reading.self, from: try PythonScript.run(script, ["rgba", file.path, out.path]))
        reading.pixels = Array(try Data(contentsOf: out))
        return reading
    }
}
