@testable import Magpie
import Testing

/// Sizes and windows a layout gives, each worked out by hand from imgproxy's documented rules
/// (the comment of each case shows the arithmetic), not from the planner's code.
@Suite("Layout plans")
struct LayoutPlanTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let source: (Int, Int)
        let layout: Layout
        let scaled: (Int, Int)?
        let resultCrop: LayoutPlan.Cut?
        let size: (Int, Int)
        var testDescription: String { name }
    }

    static func layout(_ build: (inout Layout) -> Void) -> Layout {
        var layout = Layout()
        build(&layout)
        return layout
    }

    static let cases: [Case] = [
        // 600x800 to a height of 350: 600 x 350/800 = 262.5, a half: away from zero 263, to even 262.
        Case(name: "half away from zero", source: (600, 800), layout: layout { $0.height = 350 }, scaled: (263, 350), resultCrop: nil, size: (263, 350)),
        Case(name: "half to even", source: (600, 800), layout: layout { $0.height = 350; $0.sideRounding = .init(shrinking: .toNearestOrEven) },
             scaled: (262, 350), resultCrop: nil, size: (262, 350)),
        // 800x533 enlarged to fit 1200x1200: 533 x 1.5 = 799.5, truncated when enlarging; shrunk to
        // fit 400x400, 266.5 still rounds its half up.
        Case(name: "truncated when enlarging", source: (800, 533),
             layout: layout { $0.width = 1200; $0.height = 1200; $0.enlarge = true; $0.sideRounding.enlarging = .towardZero },
             scaled: (1200, 799), resultCrop: nil, size: (1200, 799)),
        Case(name: "rounded when shrinking", source: (800, 533),
             layout: layout { $0.width = 400; $0.height = 400; $0.sideRounding.enlarging = .towardZero },
             scaled: (400, 267), resultCrop: nil, size: (400, 267)),
        // 1200/300 = 4, 800/300 = 2.67: fit shrinks by the larger, 4.
        Case(name: "fit", source: (1200, 800), layout: layout { $0.width = 300; $0.height = 300 }, scaled: (300, 200), resultCrop: nil, size: (300, 200)),
        // Fill shrinks by the smaller, 2.67: 450x300, then the centre 300: left = round-even((450-300+1)/2) = 76.
        Case(name: "fill", source: (1200, 800), layout: layout { $0.width = 300; $0.height = 300; $0.resizing = .fill },
             scaled: (450, 300), resultCrop: .rectangle(x: 76, y: 0, width: 300, height: 300), size: (300, 300)),
        Case(name: "fill east", source: (1200, 800), layout: layout { $0.width = 300; $0.height = 300; $0.resizing = .fill; $0.gravity = .anchored(.east) },
             scaled: (450, 300), resultCrop: .rectangle(x: 150, y: 0, width: 300, height: 300), size: (300, 300)),
        // North with an x offset of 10 px: the centre's 76 moved right by 10.
        Case(name: "fill north offset", source: (1200, 800),
             layout: layout { $0.width = 300; $0.height = 300; $0.resizing = .fill; $0.gravity = .anchored(.north, x: 10, y: 0) },
             scaled: (450, 300), resultCrop: .rectangle(x: 86, y: 0, width: 300, height: 300), size: (300, 300)),
        // Offsets below 1 are fractions of the scaled side: 0.1 x 450 = 45 from the west.
        Case(name: "fill west fractional offset", source: (1200, 800),
             layout: layout { $0.width = 300; $0.height = 300; $0.resizing = .fill; $0.gravity = .anchored(.west, x: 0.1, y: 0) },
             scaled: (450, 300), resultCrop: .rectangle(x: 45, y: 0, width: 300, height: 300), size: (300, 300)),
        // Focus point at the far corner: centred on 450, 300, pushed back inside.
        Case(name: "focus point", source: (1200, 800),
             layout: layout { $0.width = 300; $0.height = 300; $0.resizing = .fill; $0.gravity = .focusPoint(x: 1, y: 1) },
             scaled: (450, 300), resultCrop: .rectangle(x: 150, y: 0, width: 300, height: 300), size: (300, 300)),
        Case(name: "smart", source: (1200, 800), layout: layout { $0.width = 300; $0.height = 300; $0.resizing = .fill; $0.gravity = .smart(.attention) },
             scaled: (450, 300), resultCrop: .smart(.attention, width: 300, height: 300), size: (300, 300)),
        // Never enlarged by default: the 400x300 image stays as it is.
        Case(name: "no enlarge", source: (400, 300), layout: layout { $0.width = 800; $0.height = 600 }, scaled: nil, resultCrop: nil, size: (400, 300)),
        Case(name: "enlarge", source: (400, 300), layout: layout { $0.width = 800; $0.height = 800; $0.enlarge = true }, scaled: (800, 600), resultCrop: nil, size: (800, 600)),
        // A fill of a small image keeps it whole: the box's 800x800 crop holds all of 400x300.
        Case(name: "fill small", source: (400, 300), layout: layout { $0.width = 800; $0.height = 800; $0.resizing = .fill }, scaled: nil, resultCrop: nil, size: (400, 300)),
        // Fill-down crops a small image to the box's aspect ratio instead: 300x300 from the centre,
        // left = round-even((400-300+1)/2) = 50.
        Case(name: "fill-down small", source: (400, 300), layout: layout { $0.width = 800; $0.height = 800; $0.resizing = .fillDown },
             scaled: nil, resultCrop: .rectangle(x: 50, y: 0, width: 300, height: 300), size: (300, 300)),
        Case(name: "force", source: (1200, 800), layout: layout { $0.width = 300; $0.height = 300; $0.resizing = .force }, scaled: (300, 300), resultCrop: nil, size: (300, 300)),
        // Force with one side: the other keeps its size.
        Case(name: "force width only", source: (1200, 800), layout: layout { $0.width = 300; $0.resizing = .force }, scaled: (300, 800), resultCrop: nil, size: (300, 800)),
        Case(name: "width only", source: (1200, 800), layout: layout { $0.width = 300 }, scaled: (300, 200), resultCrop: nil, size: (300, 200)),
        Case(name: "height only", source: (1200, 800), layout: layout { $0.height = 100 }, scaled: (150, 100), resultCrop: nil, size: (150, 100)),
        // Landscape into a square box: the same orientation (both "not portrait"), so auto fills.
        Case(name: "auto fills", source: (1200, 800), layout: layout { $0.width = 300; $0.height = 300; $0.resizing = .auto },
             scaled: (450, 300), resultCrop: .rectangle(x: 76, y: 0, width: 300, height: 300), size: (300, 300)),
        // Portrait into a landscape box: auto fits, shrinking by 1200/200 = 6: 133x200.
        Case(name: "auto fits", source: (800, 1200), layout: layout { $0.width = 300; $0.height = 200; $0.resizing = .auto }, scaled: (133, 200), resultCrop: nil, size: (133, 200)),
        // The pixel ratio doubles the box: 600x400.
        Case(name: "dpr", source: (1200, 800), layout: layout { $0.width = 300; $0.height = 300; $0.dpr = 2 }, scaled: (600, 400), resultCrop: nil, size: (600, 400)),
        // Too small for twice the box: the ratio falls to 500/300 and the image keeps its size.
        Case(name: "dpr limited", source: (500, 400), layout: layout { $0.width = 300; $0.height = 300; $0.dpr = 2 }, scaled: nil, resultCrop: nil, size: (500, 400)),
        Case(name: "zoom", source: (1200, 800), layout: layout { $0.width = 300; $0.zoomX = 2; $0.zoomY = 2 }, scaled: (600, 400), resultCrop: nil, size: (600, 400)),
        // Fit to 300x100 would shrink by 8; a minimum width of 300 allows only 1200/300 = 4, and
        // the 300x200 is then cut to the box like any result larger than it: top = round-even(101/2).
        Case(name: "min width", source: (1200, 800), layout: layout { $0.width = 300; $0.height = 100; $0.minWidth = 300 },
             scaled: (300, 200), resultCrop: .rectangle(x: 0, y: 50, width: 300, height: 100), size: (300, 100)),
        // Extend puts the unenlarged 400x300 on the 800x600 box: x = round-even(401/2) = 200, y = 150.
        Case(name: "extend", source: (400, 300), layout: layout { $0.width = 800; $0.height = 600; $0.extend = .centre }, scaled: nil, resultCrop: nil, size: (800, 600)),
        // 300x200 to the box's 1:1: a 300x300 canvas.
        Case(name: "extend aspect ratio", source: (1200, 800), layout: layout { $0.width = 300; $0.height = 300; $0.extendAspectRatio = .centre },
             scaled: (300, 200), resultCrop: nil, size: (300, 300)),
        // Padding top 10 and right 20; bottom and left repeat them: 300+40 by 200+20.
        Case(name: "padding", source: (1200, 800), layout: layout { $0.width = 300; $0.padding = .init(top: 10, right: 20, bottom: 10, left: 20) },
             scaled: (300, 200), resultCrop: nil, size: (340, 220)),
        // A quarter turn first: 800x1200 into the box.
        Case(name: "rotate", source: (800, 1200), layout: layout { $0.width = 300; $0.height = 300; $0.rotation = 90 }, scaled: (200, 300), resultCrop: nil, size: (200, 300)),
    ]

    @Test(arguments: cases)
    func sizesAndWindows(_ item: Case) {
        var source = DecodedImage.Size(width: item.source.0, height: item.source.1)
        if item.layout.rotation % 180 != 0 { source = DecodedImage.Size(width: source.height, height: source.width) }
        // The rotate case gives its source already turned.
        if item.name == "rotate" { source = DecodedImage.Size(width: item.source.0, height: item.source.1) }
        let plan = LayoutPlan(item.layout, source: source)
        #expect(plan.scaled.map { [$0.width, $0.height] } == item.scaled.map { [$0.0, $0.1] })
        #expect(plan.resultCrop == item.resultCrop)
        #expect([plan.size.width, plan.size.height] == [item.size.0, item.size.1])
    }

    @Test func extendPlacesTheImageByItsGravity() {
        var layout = Layout()
        (layout.width, layout.height) = (800, 600)
        layout.extend = .centre
        #expect(LayoutPlan(layout, source: .init(width: 400, height: 300)).canvases == [.init(width: 800, height: 600, x: 200, y: 150)])
        layout.extend = .anchored(.southEast)
        #expect(LayoutPlan(layout, source: .init(width: 400, height: 300)).canvases == [.init(width: 800, height: 600, x: 400, y: 300)])
        layout.extend = .anchored(.northWest, x: 10, y: 20)
        #expect(LayoutPlan(layout, source: .init(width: 400, height: 300)).canvases == [.init(width: 800, height: 600, x: 10, y: 20)])
    }

    @Test func aCropBeforeScalingIsCutFromTheWholeImage() {
        var layout = Layout()
        layout.crop = .init(width: 600, height: 400)
        let centred = LayoutPlan(layout, source: .init(width: 1200, height: 800))
        // left = round-even((1200-600+1)/2) = 300, top = round-even(401/2) = 200.
        #expect(centred.crop == .rectangle(x: 300, y: 200, width: 600, height: 400))
        #expect(centred.size == DecodedImage.Size(width: 600, height: 400))
        layout.crop = .init(width: 0.5, height: 0.5, placement: .anchored(.southEast))
        layout.width = 300
        let fractional = LayoutPlan(layout, source: .init(width: 1200, height: 800))
        #expect(fractional.crop == .rectangle(x: 600, y: 400, width: 600, height: 400))
        #expect(fractional.size == DecodedImage.Size(width: 300, height: 200))
    }

    @Test func aFocusPixelIsTheSourcesEvenAfterACrop() {
        var layout = Layout()
        (layout.width, layout.height, layout.resizing) = (200, 200, .fill)
        layout.gravity = .focusPixel(x: 900, y: 400)
        // The whole 1200x800 filled to 300x200: the point 900 is 0.75 across, 225 of 300; the
        // 200 px window centred there runs 125...325, kept inside: 100.
        #expect(LayoutPlan(layout, source: .init(width: 1200, height: 800)).resultCrop == .rectangle(x: 100, y: 0, width: 200, height: 200))
        // After a manual crop of 600x800 from 400: the point is 500 into it, 5/6 across the
        // 200x267 fill (167 -> 67...267, kept inside: 0...200 is the whole width).
        layout.crop = .init(width: 600, height: 800, placement: .anchored(.northWest, x: 400, y: 0))
        let cropped = LayoutPlan(layout, source: .init(width: 1200, height: 800))
        #expect(cropped.crop == .rectangle(x: 400, y: 0, width: 600, height: 800))
        // 400 of 800 down is the middle: 267 high, window 200 centred at 133.5 -> 34.
        if case .rectangle(_, let y, _, let height) = cropped.resultCrop { #expect(y == 34 && height == 200) } else { Issue.record("\(String(describing: cropped.resultCrop))") }
    }

    @Test func paddingScalesWithThePixelRatio() {
        var layout = Layout()
        layout.width = 300
        layout.dpr = 2
        layout.padding = .init(top: 5, right: 5, bottom: 5, left: 5)
        let plan = LayoutPlan(layout, source: .init(width: 1200, height: 800))
        #expect(plan.size == DecodedImage.Size(width: 620, height: 420))
        #expect(plan.canvases.last == .init(width: 620, height: 420, x: 10, y: 10))
    }

    /// A 200x100 image filled to 100x100 with padding 100, 200, 300, 400 makes 700x500; held to
    /// 200 a side, everything shrinks by 200/700 and each part is rounded on its own: the image
    /// 29 (28.6), the padding 29, 57, 86, 114, so 200x144 (the whole scaled would be 143).
    @Test func theResultSideIsLimitedPartByPart() {
        var layout = Layout()
        (layout.width, layout.height, layout.resizing) = (100, 100, .fill)
        layout.padding = .init(top: 100, right: 200, bottom: 300, left: 400)
        layout.maximumResultSide = 200
        let plan = LayoutPlan(layout, source: .init(width: 200, height: 100))
        #expect(plan.size == .init(width: 200, height: 144))
        #expect(plan.scaled == .init(width: 57, height: 29))
        layout.maximumResultSide = 1000
        #expect(LayoutPlan(layout, source: .init(width: 200, height: 100)).size == .init(width: 700, height: 500), "within the limit: as asked")
    }

    /// thumbor's MAX_WIDTH and MAX_HEIGHT: 3000x2000 over 1200x800 exceeds the width more, so it
    /// is taken at 1200x800, and a crop of 100,100 to 200,200 becomes 40,40 to 80,80.
    @Test func aSourceOverItsLimitIsTakenSmallerWithItsCrop() {
        var layout = Layout()
        layout.sourceLimit = .init(width: 1200, height: 800)
        layout.crop = .init(width: 100, height: 100, placement: .anchored(.northWest, x: 100, y: 100))
        let plan = LayoutPlan(layout, source: .init(width: 3000, height: 2000))
        #expect(plan.source == .init(width: 1200, height: 800) && plan.size == .init(width: 40, height: 40))
        #expect(plan.crop == .rectangle(x: 40, y: 40, width: 40, height: 40))
        layout = Layout()
        layout.sourceLimit = .init(width: 0, height: 1)
        #expect(LayoutPlan(layout, source: .init(width: 300, height: 400)).size == .init(width: 1, height: 1))
        layout.sourceLimit = .init(width: 500, height: 500)
        #expect(LayoutPlan(layout, source: .init(width: 300, height: 400)).size == .init(width: 300, height: 400), "within: as it is")
    }
}
