import Foundation
import Magpie
import MagpieTesting
import Testing

/// Trimming finds a photo placed on a plain canvas, whatever the canvas colour, and cuts every
/// frame alike.
@Suite("Trim")
struct TrimTests {
    static func photo() throws -> DecodedImage {
        let bytes = Array(try Data(contentsOf: Corpus.directory.appendingPathComponent("exif-orientation/Landscape_1.jpg")))
        let whole = try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: .max)
        return try ImageProcessors.Crop(.rectangle(x: 100, y: 100, width: 300, height: 200)).process(whole)
    }

    @Test(arguments: [Colour.white, Colour(red: 20, green: 90, blue: 200), Colour.transparent])
    func aPhotoOnACanvasIsFound(canvas: Colour) throws {
        let photo = try Self.photo()
        let placed = try ImageProcessors.Embed(width: 500, height: 360, x: 40, y: 70, background: canvas).process(photo)
        let trimmed = try ImageProcessors.Trim(threshold: 10).process(placed)
        #expect(trimmed.width == 300 && trimmed.height == 200)
        #expect(trimmed.pixels == photo.pixels, "the photo, exactly")
        let named = try ImageProcessors.Trim(threshold: 10, colour: canvas.alpha == 0 ? Colour(red: 255, green: 0, blue: 255) : canvas).process(placed)
        #expect(named.width == 300 && named.height == 200)
    }

    @Test func equalBordersKeepThePhotoCentred() throws {
        let photo = try Self.photo()
        let placed = try ImageProcessors.Embed(width: 500, height: 360, x: 40, y: 70, background: .white).process(photo)
        // Borders: 40 left and 160 right, 70 top and 90 bottom; the smaller cut grows to match.
        let horizontal = try ImageProcessors.Trim(threshold: 10, equalHorizontal: true).process(placed)
        #expect(horizontal.width == 420 && horizontal.height == 200)
        let both = try ImageProcessors.Trim(threshold: 10, equalHorizontal: true, equalVertical: true).process(placed)
        #expect(both.width == 420 && both.height == 220)
    }

    @Test func theBottomRightCornerCanNameTheBorder() throws {
        // Blue all round, a red square in the top-left corner and green inside: the top-left
        // colour (red) is no border; the bottom-right one (blue) leaves 15x15 from the corner.
        var pixels: [UInt8] = []
        for y in 0..<20 {
            for x in 0..<20 {
                pixels += x < 5 && y < 5 ? [255, 0, 0, 255] : (5..<15).contains(x) && (5..<15).contains(y) ? [0, 255, 0, 255] : [0, 0, 255, 255]
            }
        }
        let image = DecodedImage(width: 20, height: 20, pixels: pixels)
        let fromTopLeft = try ImageProcessors.Trim(threshold: 10).process(image)
        #expect((fromTopLeft.width, fromTopLeft.height) == (20, 20))
        let fromBottomRight = try ImageProcessors.Trim(threshold: 10, corner: .bottomRight).process(image)
        #expect((fromBottomRight.width, fromBottomRight.height) == (15, 15))
        #expect(fromBottomRight.pixel(x: 0, y: 0) == (255, 0, 0, 255))
    }

    @Test func aPlainImageIsKept() throws {
        let plain = DecodedImage(width: 40, height: 30, pixels: [UInt8](repeating: 200, count: 40 * 30 * 4))
        let trimmed = try ImageProcessors.Trim().process(plain)
        #expect(trimmed.width == 40 && trimmed.height == 30)
    }
}
