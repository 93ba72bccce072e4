import Foundation
@testable import Magpie
import Testing

/// The watermark's placement, tiling, opacity, scale and frames, checked on flat colours where
/// every pixel's expected value is known.
@Suite struct WatermarkTests {
    static func flat(_ width: Int, _ height: Int, _ rgba: [UInt8], frames: Int = 1) -> DecodedImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * frames * 4)
        for _ in 0..<(width * height * frames) { pixels += rgba }
        let animation = frames > 1 ? Animation(frameDelays: Array(repeating: 100, count: frames), loopCount: 0) : nil
        return DecodedImage(width: width, height: height, pixels: pixels, animation: animation)
    }

    static let red = ImageProcessors.Watermark.Mark(identifier: "red", image: flat(10, 6, [255, 0, 0, 255]))
    static let white = flat(100, 60, [255, 255, 255, 255])

    /// The bounding box of pixels that are not white in frame `frame`.
    static func marked(_ image: DecodedImage, frame: Int = 0) -> (x: ClosedRange<Int>, y: ClosedRange<Int>)? {
        let still = image.frame(frame)
        var xs: [Int] = [], ys: [Int] = []
        for y in 0..<still.height {
            for x in 0..<still.width where still.pixel(x: x, y: y).green < 250 {
                xs.append(x)
                ys.append(y)
            }
        }
        guard let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() else { return nil }
        return (minX...maxX, minY...maxY)
    }

    // The centre is imgproxy's: half of (outer - inner + 1), halves to even, so a 10x6 mark on
    // 100x60 starts at 46 (45.5) and 28 (27.5).
    @Test(arguments: [
        (Placement.centre, 46...55, 28...33),
        (.anchored(.northWest), 0...9, 0...5),
        (.anchored(.southEast), 90...99, 54...59),
        (.anchored(.north, x: 5, y: 3), 51...60, 3...8),
        (.anchored(.east, x: 0.1, y: 0), 80...89, 28...33),
        // Offsets may push the mark past the edge, which cuts it.
        (.anchored(.northWest, x: -4, y: 0), 0...5, 0...5),
    ])
    func placesTheMark(placement: Placement, x: ClosedRange<Int>, y: ClosedRange<Int>) throws {
        let out = try ImageProcessors.Watermark(mark: Self.red, position: .placed(placement)).process(Self.white)
        let box = try #require(Self.marked(out))
        #expect(box.x == x && box.y == y)
        #expect((out.width, out.height) == (100, 60))
        #expect(out.pixel(x: x.lowerBound, y: y.lowerBound) == (255, 0, 0, 255))
    }

    @Test func offsetsInPixelsScaleWithThePixelRatio() throws {
        let out = try ImageProcessors.Watermark(mark: Self.red, position: .placed(.anchored(.northWest, x: 5, y: 5)), offsetScale: 2)
            .process(Self.white)
        let box = try #require(Self.marked(out))
        #expect(box.x == 10...19 && box.y == 10...15)
    }

    @Test func opacityBlendsTheMark() throws {
        let out = try ImageProcessors.Watermark(mark: Self.red, opacity: 0.5).process(Self.white)
        let pixel = out.pixel(x: 50, y: 30)
        #expect(pixel.red == 255 && abs(Int(pixel.green) - 128) <= 1 && pixel.alpha == 255)
        #expect(out.pixel(x: 0, y: 0) == (255, 255, 255, 255))
    }

    @Test func scaleFitsTheMarkToAFractionOfTheImage() throws {
        // 0.5 of 100x60 is a 50x30 box; the 10x6 mark is enlarged to fit it: 50x30.
        let out = try ImageProcessors.Watermark(mark: Self.red, position: .placed(.anchored(.northWest)), scale: 0.5).process(Self.white)
        let box = try #require(Self.marked(out))
        #expect(box.x == 0...49 && box.y == 0...29)
    }

    @Test func tilingRepeatsTheMarkFromTheCentreWithSpacing() throws {
        // 10x6 tiles with 10 px across and 4 down between them: cells of 20x10, an odd number
        // of them each way, centred.
        let out = try ImageProcessors.Watermark(mark: Self.red, position: .tiled(spacingX: 10, spacingY: 4)).process(Self.white)
        // The centre cell covers 40...59 x 25...34, its tile 45...54 x 27...32.
        #expect(out.pixel(x: 45, y: 27).green == 0 && out.pixel(x: 54, y: 32).green == 0)
        #expect(out.pixel(x: 44, y: 27).green == 255 && out.pixel(x: 55, y: 33).green == 255)
        // Its neighbours, one cell away each way.
        #expect(out.pixel(x: 25, y: 27).green == 0 && out.pixel(x: 65, y: 37).green == 0 && out.pixel(x: 45, y: 17).green == 0)
        #expect(out.pixel(x: 35, y: 27).green == 255)
    }

    @Test func thumborAlignmentsPlaceEachAxisOnItsOwn() throws {
        typealias W = ImageProcessors.Watermark
        // x -5 is 5 px from the right edge; y 10p is 10 % of 60 from the top.
        let out = try W(mark: Self.red, opacity: 1, position: .aligned(x: .end(.pixels(5)), y: .start(.percent(10))), scaleWidth: 0, scaleHeight: 0)
            .process(Self.white)
        let box = try #require(Self.marked(out))
        #expect(box.x == 85...94 && box.y == 6...11)
        // Repeated: 100 / 10 = 10 marks across, no gap; 60 / 6 = 10 down.
        #expect(W.starts(.repeated, side: 100, mark: 10, capped: false) == Array(stride(from: 0, to: 100, by: 10)))
        // 100 / 30 = 3 marks, 10 px left over, 5 px between them.
        #expect(W.starts(.repeated, side: 100, mark: 30, capped: false) == [0, 35, 70])
        // A mark over half the side: as many as cover it, 10 px apart.
        #expect(W.starts(.repeated, side: 100, mark: 60, capped: false) == [0, 70])
        // More than 100 in all: 6 a side, spread.
        #expect(W.starts(.repeated, side: 100, mark: 5, capped: true) == [0, 19, 38, 57, 76, 95])
        #expect(W.starts(.centre, side: 100, mark: 11, capped: false) == [44])
        // A 1 px mark across 5,000 px: 1,000 marks at most, spread to both edges.
        let many = W.starts(.repeated, side: 5_000, mark: 1, capped: false)
        #expect(many.count == 1_000 && many.first == 0 && (many.last ?? 0) <= 4_999 && (many.last ?? 0) > 4_990)
        let grid = try W(mark: Self.red, opacity: 1, position: .aligned(x: .repeated, y: .repeated), scaleWidth: 0, scaleHeight: 0)
            .process(Self.flat(30, 12, [255, 255, 255, 255]))
        // 3 x 2 marks of 10x6 fill a 30x12 image.
        #expect(Self.marked(grid).map { ($0.x, $0.y) } ?? (0...0, 0...0) == (0...29, 0...11))
        #expect((0..<12).allSatisfy { y in (0..<30).allSatisfy { grid.pixel(x: $0, y: y).green == 0 } })
    }

    @Test func aScaleWithOneSideFitsThatSide() throws {
        // thumbor's w_ratio alone: 20 % of 100 wide, the height follows the mark's shape.
        let out = try ImageProcessors.Watermark(
            mark: Self.red, opacity: 1, position: .aligned(x: .start(.pixels(0)), y: .start(.pixels(0))), scaleWidth: 0.2, scaleHeight: 0
        ).process(Self.white)
        let box = try #require(Self.marked(out))
        #expect(box.x == 0...19 && box.y == 0...11)
    }

    @Test func everyFrameOfAnAnimationIsMarkedAlike() throws {
        let animation = Self.flat(100, 60, [255, 255, 255, 255], frames: 3)
        let out = try ImageProcessors.Watermark(mark: Self.red, position: .placed(.anchored(.southEast))).process(animation)
        #expect(out.frameCount == 3)
        for frame in 0..<3 {
            let box = try #require(Self.marked(out, frame: frame))
            #expect(box.x == 90...99 && box.y == 54...59)
        }
    }

    @Test func transparencyOfTheMarkShowsTheImage() throws {
        // Only the left half of the mark is opaque.
        var pixels: [UInt8] = []
        for _ in 0..<6 { for x in 0..<10 { pixels += x < 5 ? [0, 0, 255, 255] : [0, 0, 255, 0] } }
        let mark = ImageProcessors.Watermark.Mark(identifier: "half", image: DecodedImage(width: 10, height: 6, pixels: pixels))
        let out = try ImageProcessors.Watermark(mark: mark, position: .placed(.anchored(.northWest))).process(Self.white)
        #expect(out.pixel(x: 4, y: 0) == (0, 0, 255, 255))
        #expect(out.pixel(x: 5, y: 0) == (255, 255, 255, 255))
    }

    @Test func textMarksAreDarkTextOnTransparency() throws {
        let mark = try ImageProcessors.Watermark.Mark.text("Magpie", fontPixels: 30)
        #expect(mark.image.width > 40 && mark.image.height >= 15)
        let alphas = stride(from: 3, to: mark.image.pixels.count, by: 4).map { mark.image.pixels[$0] }
        #expect(alphas.contains(0) && alphas.contains(255))
        let inked = stride(from: 0, to: mark.image.pixels.count, by: 4).filter { mark.image.pixels[$0 + 3] == 255 }
        #expect(inked.allSatisfy { mark.image.pixels[$0] < 40 })
        let coloured = try ImageProcessors.Watermark.Mark.text("<span foreground=\"#ff0000\">Magpie</span>", fontPixels: 30)
        let red = stride(from: 0, to: coloured.image.pixels.count, by: 4).filter { coloured.image.pixels[$0 + 3] == 255 }
        #expect(!red.isEmpty && red.allSatisfy { coloured.image.pixels[$0] > 200 && coloured.image.pixels[$0 + 1] < 40 })
        #expect(mark.identifier != coloured.identifier)
    }

    @Test func badTextIsRefused() {
        #expect(throws: MagpieError.self) { try ImageProcessors.Watermark.Mark.text("") }
        #expect(throws: MagpieError.self) { try ImageProcessors.Watermark.Mark.text(String(repeating: "x", count: 2000)) }
        #expect(throws: MagpieError.self) { try ImageProcessors.Watermark.Mark.text("<b>unclosed") }
    }
}
