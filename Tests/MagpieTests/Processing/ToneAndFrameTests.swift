import Foundation
import Magpie
import Testing

/// Duotone and monochrome ramps, the frame picker and a translucent background, on pixels whose
/// expected values are worked out by hand.
@Suite struct ToneAndFrameTests {
    static func pixels(_ colours: [[UInt8]]) -> DecodedImage {
        DecodedImage(width: colours.count, height: 1, pixels: Array(colours.joined()))
    }

    @Test func duotoneMapsLuminanceFromShadowsToHighlights() throws {
        let image = Self.pixels([[0, 0, 0, 255], [255, 255, 255, 255], [128, 128, 128, 200]])
        let out = try ImageProcessors.Tint.duotone(shadows: Colour(red: 0, green: 0, blue: 100), highlights: Colour(red: 200, green: 100, blue: 0))
            .process(image)
        #expect(out.pixel(x: 0, y: 0) == (0, 0, 100, 255))
        #expect(out.pixel(x: 1, y: 0) == (200, 100, 0, 255))
        // Level 128 of 255: about halfway, (100, 50, 50); the alpha is kept.
        let middle = out.pixel(x: 2, y: 0)
        #expect(abs(Int(middle.red) - 100) <= 1 && abs(Int(middle.green) - 50) <= 1 && abs(Int(middle.blue) - 50) <= 1 && middle.alpha == 200)
    }

    @Test func monochromeRunsThroughTheColourAndIntensityBlends() throws {
        let grey = Self.pixels([[128, 128, 128, 255], [0, 0, 0, 255]])
        // Mid-grey lands on the colour itself.
        let full = try ImageProcessors.Tint.monochrome(Colour(red: 51, green: 102, blue: 204)).process(grey)
        let middle = full.pixel(x: 0, y: 0)
        #expect(abs(Int(middle.red) - 51) <= 2 && abs(Int(middle.green) - 102) <= 2 && abs(Int(middle.blue) - 204) <= 2)
        #expect(full.pixel(x: 1, y: 0) == (0, 0, 0, 255))
        // Half intensity: halfway between the original grey and the colour.
        let half = try ImageProcessors.Tint.monochrome(Colour(red: 51, green: 102, blue: 204), intensity: 0.5).process(grey).pixel(x: 0, y: 0)
        #expect(abs(Int(half.red) - 89) <= 2 && abs(Int(half.green) - 115) <= 2 && abs(Int(half.blue) - 166) <= 2)
    }

    @Test func frameTakesOneFrameOfAnAnimation() throws {
        let frames = (0..<3).map { [UInt8($0 * 100), 0, 0, 255] }
        let animation = DecodedImage(width: 1, height: 1, pixels: Array(frames.joined()), animation: Animation(frameDelays: [100, 100, 100], loopCount: 0))
        #expect(try ImageProcessors.Frame(1).process(animation).pixel(x: 0, y: 0) == (100, 0, 0, 255))
        #expect(try ImageProcessors.Frame(1).process(animation).frameCount == 1)
        // Past the end: the last frame.
        #expect(try ImageProcessors.Frame(9).process(animation).pixel(x: 0, y: 0) == (200, 0, 0, 255))
        let still = Self.pixels([[7, 7, 7, 255]])
        #expect(try ImageProcessors.Frame(2).process(still).pixel(x: 0, y: 0) == (7, 7, 7, 255))
    }

    @Test func aTranslucentBackgroundLeavesTranslucency() throws {
        let image = Self.pixels([[0, 0, 0, 0], [0, 0, 255, 255], [0, 0, 255, 128]])
        let out = try ImageProcessors.Flatten(background: Colour(red: 255, green: 0, blue: 0, alpha: 128)).process(image)
        #expect(out.pixel(x: 0, y: 0) == (255, 0, 0, 128))
        #expect(out.pixel(x: 1, y: 0) == (0, 0, 255, 255))
        // Half blue over half red: alpha 0.5 + 0.5 * 0.5 = 0.75; blue 2/3, red 1/3.
        let mixed = out.pixel(x: 2, y: 0)
        #expect(abs(Int(mixed.alpha) - 191) <= 1 && abs(Int(mixed.red) - 85) <= 2 && abs(Int(mixed.blue) - 170) <= 2)
        // Opaque, as before: what was transparent is the colour.
        #expect(try ImageProcessors.Flatten(background: .white).process(image).pixel(x: 0, y: 0) == (255, 255, 255, 255))
    }
}
