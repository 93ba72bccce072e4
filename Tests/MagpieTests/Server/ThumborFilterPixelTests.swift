import Foundation
import Magpie
import MagpieTesting
import Testing

@testable import MagpieServer

/// thumbor's pixel filters as Magpie reads and runs them, compared with thumbor 7.8's own filter
/// code (its C extensions, run by Tests/Reference/thumbor_filters.py in .build/thumbor-venv) on
/// the same image: every level within one of thumbor's, whose arithmetic is whole numbers.
@Suite("thumbor filters against thumbor")
struct ThumborFilterPixelTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let python = root.appendingPathComponent(".build/thumbor-venv/bin/python")
    static let script = root.appendingPathComponent("Tests/Reference/thumbor_filters.py")

    /// Every band varies across the image, so a histogram or a curve has levels to work on.
    static let image: DecodedImage = {
        let (width, height) = (60, 40)
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8(x * 4 + 10)
                pixels[offset + 1] = UInt8(y * 6)
                pixels[offset + 2] = UInt8((x * y + 40) % 256)
            }
        }
        return DecodedImage(width: width, height: height, pixels: pixels)
    }()

    /// A filter as a URL writes it, and thumbor's extension with the arguments its filter passes.
    struct Case: Sendable, CustomTestStringConvertible {
        let filter: String
        let module: String
        let arguments: String
        var testDescription: String { filter }
    }

    static let cases: [Case] = [
        Case(filter: "brightness(40)", module: "brightness", arguments: "[40]"),
        Case(filter: "brightness(-25)", module: "brightness", arguments: "[-25]"),
        Case(filter: "contrast(30)", module: "contrast", arguments: "[30]"),
        Case(filter: "contrast(-60)", module: "contrast", arguments: "[-60]"),
        Case(filter: "rgb(10,-20,30)", module: "rgb", arguments: "[10,-20,30]"),
        Case(filter: "rgb(-100,0,100)", module: "rgb", arguments: "[-100,0,100]"),
        Case(filter: "colorize(20,30,40,ff0000)", module: "colorize", arguments: "[20,30,40,255,0,0]"),
        Case(filter: "colorize(100,0,50,336699)", module: "colorize", arguments: "[100,0,50,51,102,153]"),
        Case(filter: "equalize()", module: "equalize", arguments: "[]"),
        Case(filter: "saturation(1.5)", module: "saturation", arguments: "[1.5]"),
        Case(filter: "saturation(0.3)", module: "saturation", arguments: "[0.3]"),
        Case(filter: "saturation(-1)", module: "saturation", arguments: "[-1]"),
        Case(
            filter: "curve([(0,0),(64,100),(255,255)],[(0,20),(255,230)],[(0,0),(128,64),(255,255)],[(0,0),(255,255)])", module: "curve",
            arguments: "[[[0,0],[64,100],[255,255]],[[0,20],[255,230]],[[0,0],[128,64],[255,255]],[[0,0],[255,255]]]"),
        Case(filter: "convolution(1;2;1;2;4;2;1;2;1,3,true)", module: "convolution", arguments: "[[1,2,1,2,4,2,1,2,1],3,true]"),
        Case(filter: "convolution(0;-1;0;-1;5;-1;0;-1;0,3,false)", module: "convolution", arguments: "[[0,-1,0,-1,5,-1,0,-1,0],3,false]"),
    ]

    static func thumbor(_ item: Case) throws -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-thumbor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.png"), output = folder.appendingPathComponent("out.rgba")
        try Data(ImageEncoder().encode(image, as: .png)).write(to: input)
        _ = try ChildProcess.run(python.path, [script.path, input.path, output.path, item.module, item.arguments])
        return Array(try Data(contentsOf: output))
    }

    static func magpie(_ filters: String) throws -> DecodedImage {
        let reading = try ThumborReading(try ThumborPath("/unsafe/filters:\(filters)/example.com/a.png"), limits: ProcessingLimits())
        #expect(reading.skipped.isEmpty, "\(reading.skipped)")
        return try reading.options.filters.processors.reduce(image) { try $1.process($0) }
    }

    @Test(arguments: cases)
    func everyLevelIsWithinOneOfThumbors(_ item: Case) throws {
        let expected = try Self.thumbor(item)
        let made = try Self.magpie(item.filter)
        #expect(made.width == Self.image.width && made.height == Self.image.height)
        let worst = zip(made.pixels, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 1, "\(item.filter): a level differs from thumbor's by \(worst)")
        #expect(made.pixels != Self.image.pixels, "the filter changed nothing")
    }

    /// Corners cut along thumbor's arcs, circular and elliptical (`A|B`, A across and B down):
    /// the cut part of the top-left corner lies as far across and as far down as thumbor's (its
    /// mean column and row, past the first of each, within a pixel), and about as many pixels
    /// are cut in all. (thumbor
    /// draws its arcs from whole rows, about a pixel outside the arc through pixel centres that
    /// Magpie follows, and cuts its top row A pixels whatever the arc: the edges differ.)
    @Test(arguments: [("round_corner(12,0,0,0,1)", "[12,12,0,0,0,1]"), ("round_corner(20|12,0,0,0,1)", "[20,12,0,0,0,1]"),
                      ("round_corner(8|19,0,0,0,1)", "[8,19,0,0,0,1]")])
    func cornersAreCutAlongThumborsArcs(_ item: (filter: String, arguments: String)) throws {
        let expected = try Self.thumbor(Case(filter: item.filter, module: "round_corner", arguments: item.arguments))
        let made = try Self.magpie(item.filter).pixels
        let (width, height) = (Self.image.width, Self.image.height)
        func cut(_ pixels: [UInt8]) -> (meanColumn: Double, meanRow: Double, all: Int) {
            var columns = 0, rows = 0, corner = 0
            // From the second row and column: thumbor's first row is its quirk.
            for y in 1..<height / 2 {
                for x in 1..<width / 2 where pixels[(y * width + x) * 4 + 3] < 128 {
                    (columns, rows, corner) = (columns + x, rows + y, corner + 1)
                }
            }
            let all = stride(from: 3, to: pixels.count, by: 4).filter { pixels[$0] < 128 }.count
            return (Double(columns) / Double(max(corner, 1)), Double(rows) / Double(max(corner, 1)), all)
        }
        let (theirs, ours) = (cut(expected), cut(made))
        #expect(theirs.all > 40, "thumbor cut \(theirs.all) pixels")
        #expect(abs(ours.meanColumn - theirs.meanColumn) <= 1 && abs(ours.meanRow - theirs.meanRow) <= 1, "\(item.filter): \(ours) against thumbor's \(theirs)")
        #expect(abs(ours.all - theirs.all) <= theirs.all / 3, "\(item.filter): \(ours) against thumbor's \(theirs)")
    }

    /// A nine-patch 16 x 14 (14 x 12 inside its border): a dark frame three pixels wide with a
    /// half-transparent red band and a clear middle; columns 5 to 9 and rows 4 to 8 stretch, and
    /// the content sits 4 in from the left and right and 3 from the top and bottom.
    static let ninePatch: DecodedImage = {
        let (width, height) = (16, 14)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        func set(_ x: Int, _ y: Int, _ rgba: [UInt8]) { pixels.replaceSubrange((y * width + x) * 4..<(y * width + x) * 4 + 4, with: rgba) }
        for y in 1..<height - 1 {
            for x in 1..<width - 1 {
                let edge = min(x - 1, y - 1, width - 2 - x, height - 2 - y)
                set(x, y, edge < 2 ? [20, 30, 40, 255] : edge == 2 ? [200, 0, 0, 128] : [0, 0, 0, 0])
            }
        }
        for x in 5...9 { set(x, 0, [0, 0, 0, 255]) }
        for y in 4...8 { set(0, y, [0, 0, 0, 255]) }
        for x in 5...(width - 6) { set(x, height - 1, [0, 0, 0, 255]) }
        for y in 4...(height - 5) { set(width - 1, y, [0, 0, 0, 255]) }
        return DecodedImage(width: width, height: height, pixels: pixels)
    }()

    /// thumbor's `frame`: the image padded (on white) as the patch's content markers say, and
    /// the patch stretched over it, its fixed rows and columns kept and the stretchy ones sharing
    /// the rest. thumbor 7.8's own nine-patch code cannot be the reference here: under Python 3
    /// it reads the image mode from a bytes object cast to a C string (its padding for this patch
    /// comes out as 0, 0, 0, 11), so the expectations are the nine-patch format's own.
    @Test func aNinePatchFramesAsItsMarkersSay() throws {
        let framed = try ImageProcessors.NinePatchFrame(patch: .init(identifier: "test", image: Self.ninePatch)).process(Self.image)
        // Content from column 5 to 10 of 16 and row 4 to 9 of 14: 4 and 4 across, 3 and 3 down.
        #expect(framed.width == 60 + 8 && framed.height == 40 + 6)
        // The fixed corners as drawn; the dark band runs along every edge, stretched.
        #expect(framed.pixel(x: 0, y: 0) == (20, 30, 40, 255) && framed.pixel(x: 67, y: 45) == (20, 30, 40, 255))
        for x in stride(from: 0, to: 68, by: 5) { #expect(framed.pixel(x: x, y: 1) == (20, 30, 40, 255), "top edge at \(x)") }
        for y in stride(from: 0, to: 46, by: 5) { #expect(framed.pixel(x: 66, y: y) == (20, 30, 40, 255), "right edge at \(y)") }
        // The half-transparent band over the white padding, then the image in the clear middle.
        let band = framed.pixel(x: 2, y: 20)
        #expect(abs(Int(band.red) - 228) <= 2 && abs(Int(band.green) - 127) <= 2 && band.alpha == 255, "\(band)")
        let middle = framed.pixel(x: 34, y: 23), source = Self.image.pixel(x: 30, y: 20)
        #expect(middle == source)
        // The framed size is held to the limits before the padding is allocated.
        var limits = ProcessingLimits()
        limits.maximumDimension = 64
        #expect(throws: MagpieError.outputTooLarge(width: 68, height: 46, maximumSide: 64, maximumPixels: 40_000_000)) {
            try ImageProcessors.NinePatchFrame(patch: .init(identifier: "test", image: Self.ninePatch), limits: limits).process(Self.image)
        }
        // A patch without markers is drawn at its size, nothing stretched or padded.
        let bare = DecodedImage(width: 3, height: 3, pixels: [UInt8](repeating: 0, count: 36))
        #expect(try ImageProcessors.NinePatchFrame(patch: .init(identifier: "bare", image: bare)).process(Self.image).width == 60)
        #expect(throws: MagpieError.self) {
            try ImageProcessors.NinePatchFrame(patch: .init(identifier: "tiny", image: DecodedImage(width: 2, height: 2, pixels: [UInt8](repeating: 0, count: 16)))).process(Self.image)
        }
    }

    /// Random levels cannot match thumbor's generator: the grain matches in kind. thumbor adds
    /// one level to all three bands of a pixel, uniform over AMOUNT; Magpie's has the same
    /// spread, and a seed gives the same grain every time (a cached result is the same image).
    @Test func noiseHasThumborsSpreadAndIsTheSameForASeed() throws {
        let expected = try Self.thumbor(Case(filter: "noise(40,7)", module: "noise", arguments: "[40,7]"))
        let made = try Self.magpie("noise(40,7)")
        func spread(_ pixels: [UInt8]) -> Double {
            var sum = 0.0, squares = 0.0, count = 0.0
            for index in stride(from: 0, to: pixels.count, by: 4) {
                // The green band: from 0 up it clips less than the others on this image.
                let original = Int(Self.image.pixels[index + 1])
                guard original > 40, original < 215 else { continue }
                let change = Double(Int(pixels[index + 1]) - original)
                (sum, squares, count) = (sum + change, squares + change * change, count + 1)
            }
            return (squares / count - (sum / count) * (sum / count)).squareRoot()
        }
        let (thumbors, magpies) = (spread(expected), spread(made.pixels))
        #expect(abs(magpies - thumbors) / thumbors < 0.2, "spread \(magpies) against thumbor's \(thumbors)")
        #expect(try Self.magpie("noise(40,7)").pixels == made.pixels)
        #expect(try Self.magpie("noise(40,8)").pixels != made.pixels)
    }
}
