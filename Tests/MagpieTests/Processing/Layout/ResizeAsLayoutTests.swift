import MagpieTesting
import Testing

@testable import Magpie

/// A ``ImageProcessors/Resize`` is a layout in libvips' and Pillow's arithmetic: the sizes and
/// the fill's cut it plans are the ones that arithmetic gives, stated here on its own terms (the
/// box's side over the image's, each side of a stretch stopped at the image's own unless
/// enlarging, a centred cut's spare pixel after it).
@Suite struct ResizeAsLayoutTests {
    static let sides = [1, 2, 3, 7, 50, 99, 100, 101, 199, 333, 640, 1001, 4000]
    static let boxes = [1, 3, 100, 150, 201, 999]

    @Test(arguments: [Fit.fit, .fill, .cover, .exact], [false, true])
    func theLayoutPlansWhatTheDirectArithmeticGives(_ fit: Fit, _ upscale: Bool) {
        for width in Self.sides { for height in Self.sides { for boxWidth in Self.sides { for boxHeight in Self.boxes {
            var horizontal = Double(boxWidth) / Double(width), vertical = Double(boxHeight) / Double(height)
            switch fit {
            case .fit: (horizontal, vertical) = (min(horizontal, vertical), min(horizontal, vertical))
            case .fill, .cover: (horizontal, vertical) = (max(horizontal, vertical), max(horizontal, vertical))
            default: break
            }
            if !upscale { (horizontal, vertical) = (min(horizontal, 1), min(vertical, 1)) }
            let scaled = (
                horizontal == 1 ? width : max(1, Int((Double(width) * horizontal).rounded())),
                vertical == 1 ? height : max(1, Int((Double(height) * vertical).rounded()))
            )
            let kept = fit == .fill ? (min(scaled.0, boxWidth), min(scaled.1, boxHeight)) : scaled
            let resize = ImageProcessors.Resize(width: boxWidth, height: boxHeight, fit: fit, upscale: upscale)
            let plan = LayoutPlan(resize.layout, source: DecodedImage.Size(width: width, height: height))
            let label = "\(width)x\(height) to \(resize.identifier)"
            #expect(plan.size == DecodedImage.Size(width: kept.0, height: kept.1), "\(label)")
            let corner = ((scaled.0 - kept.0) / 2, (scaled.1 - kept.1) / 2)
            switch plan.resultCrop {
            case .rectangle(let x, let y, _, _)?: #expect(x == corner.0 && y == corner.1, "\(label)")
            case nil: #expect(corner == (0, 0), "\(label)")
            case .smart?: Issue.record("\(label): a smart cut")
            }
            guard plan.size.width == kept.0, plan.size.height == kept.1 else { return }
        } } } }
    }

    @Test func aGravityIsThePlacementOfTheCut() {
        let source = DecodedImage.Size(width: 400, height: 201)
        let cuts: [(Gravity, LayoutPlan.Cut)] = [
            (.centre, .rectangle(x: 0, y: 50, width: 400, height: 100)), (.top, .rectangle(x: 0, y: 0, width: 400, height: 100)),
            (.bottom, .rectangle(x: 0, y: 101, width: 400, height: 100)), (.attention, .smart(.attention, width: 400, height: 100)),
        ]
        for (gravity, cut) in cuts {
            #expect(LayoutPlan(ImageProcessors.Resize(width: 400, height: 100, fit: .fill, gravity: gravity).layout, source: source).resultCrop == cut)
        }
        // A crop cuts before any scaling, and keeps the whole side where the image is smaller.
        let crop = LayoutPlan(ImageProcessors.Resize(width: 500, height: 101, fit: .crop, gravity: .right).layout, source: source)
        #expect(crop.crop == .rectangle(x: 0, y: 50, width: 400, height: 101) && crop.scaled == nil && crop.size == DecodedImage.Size(width: 400, height: 101))
    }

    @Test func aBoxPastWhatALayoutMakesIsRefusedBeforeAnythingIsAllocated() throws {
        let image = DecodedImage(width: 10, height: 10, pixels: [UInt8](repeating: 200, count: 400))
        #expect(throws: MagpieError.outputTooLarge(width: 70_000, height: 10, maximumSide: 65_535, maximumPixels: 100_000_000)) {
            try ImageProcessors.Resize(width: 70_000, height: 10, fit: .exact, upscale: true).process(image)
        }
    }

    /// A fill's cut made in the resample's pipeline is the same pixels as cutting the whole
    /// resampled image, reducing and enlarging, with transparency and without.
    @Test(arguments: [(640, 480, 200, 150), (120, 90, 400, 300)], [false, true])
    func aWindowIsTheCutOfTheWholeResample(_ sizes: (Int, Int, Int, Int), _ translucent: Bool) throws {
        var image = TestImages.pixels(width: sizes.0, height: sizes.1, seed: 3)
        if translucent {
            let pixels = image.pixels.enumerated().map { $0.offset % 4 == 3 ? UInt8(($0.offset / 4) % 256) : $0.element }
            image = image.replacingPixels(pixels, width: image.width, height: image.height)
        }
        let whole = try ImageProcessors.Resample(width: sizes.2, height: sizes.3).process(image)
        let window = ImageProcessors.Resample.Window(x: 17, y: 9, width: sizes.2 / 2, height: sizes.3 / 3)
        let cut = try ImageProcessors.Crop(.rectangle(x: window.x, y: window.y, width: window.width, height: window.height)).process(whole)
        let windowed = try ImageProcessors.Resample(width: sizes.2, height: sizes.3, window: window).process(image)
        #expect((windowed.width, windowed.height) == (window.width, window.height))
        #expect(windowed.pixels == cut.pixels)
    }
}
