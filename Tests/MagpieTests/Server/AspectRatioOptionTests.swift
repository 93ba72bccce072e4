@testable import Magpie
import Testing

@testable import MagpieServer

/// Magpie's own `aspect_ratio` option in imgproxy URLs: the box's shape, a missing side made from
/// the given one. Expected sizes are worked out by hand in each comment.
@Suite("aspect_ratio")
struct AspectRatioOptionTests {
    static let parser = OptionParser(presets: [:], limits: ProcessingLimits())

    static func size(_ segments: [String], source: (Int, Int)) throws -> DecodedImage.Size {
        LayoutPlan(try parser.parse(segments).layout, source: DecodedImage.Size(width: source.0, height: source.1)).size
    }

    @Test func aMissingSideIsMadeFromTheGivenOne() throws {
        // 800 wide at 16:9: 800 / (16/9) = 450 high; the 4000x3000 photo fills it (scale 0.2, 800x600, centre 450 kept).
        #expect(try Self.size(["w:800", "aspect_ratio:16:9", "rt:fill"], source: (4000, 3000)) == DecodedImage.Size(width: 800, height: 450))
        // 300 high at 0.5: 150 wide; fit inside 150x300: 4000x3000 by 150/4000 = 0.0375, 150x112.5, 113 (away from zero).
        #expect(try Self.size(["h:300", "aspect_ratio:0.5"], source: (4000, 3000)) == DecodedImage.Size(width: 150, height: 113))
        // Neither side: the largest 1:1 box in 4000x3000 is 3000x3000, filled without scaling.
        #expect(try Self.size(["aspect_ratio:1", "rt:fill"], source: (4000, 3000)) == DecodedImage.Size(width: 3000, height: 3000))
        // Both sides given: the box keeps its own shape.
        #expect(try Self.size(["s:200:100", "aspect_ratio:1", "rt:fill"], source: (4000, 3000)) == DecodedImage.Size(width: 200, height: 100))
        // After a crop: the crop's 1000x3000 holds at most 1000x1000.
        #expect(try Self.size(["c:1000:3000", "aspect_ratio:1:1", "rt:fill"], source: (4000, 3000)) == DecodedImage.Size(width: 1000, height: 1000))
    }

    @Test(arguments: ["aspect_ratio:0", "aspect_ratio:-1", "aspect_ratio:1:1000", "aspect_ratio:101", "aspect_ratio:nan", "aspect_ratio:1:2:3", "aspect_ratio:"])
    func aShapeOutsideOneToAHundredIsRefused(_ option: String) {
        #expect(throws: ProxyURLError.self) { try Self.parser.parse(["w:100", option]) }
    }

    @Test func itIsPartOfTheLayoutsName() throws {
        let plain = try Self.parser.parse(["w:800"]).layout
        let shaped = try Self.parser.parse(["w:800", "aspect_ratio:16:9"]).layout
        #expect(ImageProcessors.Layout(plain).identifier != ImageProcessors.Layout(shaped).identifier)
    }

    @Test func aLayoutBuiltInCodeWithAnyShapeIsPlannedWithoutFailing() {
        for ratio in [0, -1, .nan, .infinity, 1e-9, 1e9] as [Double] {
            var layout = Layout()
            (layout.width, layout.aspectRatio) = (800, ratio)
            let plan = LayoutPlan(layout, source: DecodedImage.Size(width: 4000, height: 3000))
            #expect(plan.size.width >= 1 && plan.size.height >= 1, "\(ratio)")
        }
        // Out of range, the shape is held to 1:100 and 100:1: 800 wide is 80,000 or 8 high.
        #expect(LayoutPlan.box(800, 0, shaped: 1e-9, within: DecodedImage.Size(width: 10, height: 10)) == (800, 80_000))
        #expect(LayoutPlan.box(800, 0, shaped: 1e9, within: DecodedImage.Size(width: 10, height: 10)) == (800, 8))
    }
}
