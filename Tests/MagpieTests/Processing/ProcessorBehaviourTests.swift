import Magpie
import MagpieTesting
import Testing

/// What each built-in processor promises beyond matching Pillow: sizes, enlarging, gravity,
/// smart crops, and clear failures.
@Suite("Processor behaviour")
struct ProcessorBehaviourTests {
    /// A flat grey image with one saturated, detailed patch, so a smart crop has something to find.
    static func imageWithPatch(width: Int, height: Int, patchAt patchX: Int, _ patchY: Int, size: Int) -> DecodedImage {
        var pixels = [UInt8](repeating: 128, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                pixels[offset + 3] = 255
                if (patchX..<patchX + size).contains(x), (patchY..<patchY + size).contains(y) {
                    let stripe = (x / 3 + y / 3).isMultiple(of: 2)
                    pixels[offset] = stripe ? 255 : 200
                    pixels[offset + 1] = stripe ? 20 : 120
                    pixels[offset + 2] = stripe ? 40 : 0
                }
            }
        }
        return DecodedImage(width: width, height: height, pixels: pixels)
    }

    @Test func resizeNeverEnlargesUnlessAsked() throws {
        let image = TestImages.pixels(width: 100, height: 50)
        let kept = try ImageProcessors.Resize(width: 400, height: 400).process(image)
        #expect((kept.width, kept.height) == (100, 50))
        let enlarged = try ImageProcessors.Resize(width: 400, height: 400, upscale: true).process(image)
        #expect((enlarged.width, enlarged.height) == (400, 200))
    }

    @Test func resizeModes() throws {
        let image = TestImages.pixels(width: 400, height: 200)
        let fit = try ImageProcessors.Resize(width: 100, height: 100, fit: .fit).process(image)
        #expect((fit.width, fit.height) == (100, 50))
        let fill = try ImageProcessors.Resize(width: 100, height: 100, fit: .fill).process(image)
        #expect((fill.width, fill.height) == (100, 100))
        let exact = try ImageProcessors.Resize(width: 120, height: 30, fit: .exact).process(image)
        #expect((exact.width, exact.height) == (120, 30))
        let cover = try ImageProcessors.Resize(width: 100, height: 100, fit: .cover).process(image)
        #expect((cover.width, cover.height) == (200, 100))
        let crop = try ImageProcessors.Resize(width: 100, height: 100, fit: .crop, gravity: .right).process(image)
        #expect(crop.pixels == (try ImageProcessors.Crop(.rectangle(x: 300, y: 50, width: 100, height: 100)).process(image)).pixels)
    }

    @Test func fillKeepsTheSideItsGravityNames() throws {
        // Left half red, right half blue: filling a square keeps one or the other.
        var pixels = [UInt8](repeating: 0, count: 400 * 100 * 4)
        for y in 0..<100 {
            for x in 0..<400 {
                let offset = (y * 400 + x) * 4
                pixels[offset] = x < 200 ? 255 : 0
                pixels[offset + 2] = x < 200 ? 0 : 255
                pixels[offset + 3] = 255
            }
        }
        let image = DecodedImage(width: 400, height: 100, pixels: pixels)
        let left = try ImageProcessors.Resize(width: 50, height: 50, fit: .fill, gravity: .left).process(image)
        let right = try ImageProcessors.Resize(width: 50, height: 50, fit: .fill, gravity: .right).process(image)
        #expect(left.pixel(x: 25, y: 25).red > 200 && left.pixel(x: 25, y: 25).blue < 50)
        #expect(right.pixel(x: 25, y: 25).blue > 200 && right.pixel(x: 25, y: 25).red < 50)
    }

    @Test(arguments: [Gravity.attention, .entropy])
    func smartCropsFindTheDetail(_ gravity: Gravity) throws {
        let image = Self.imageWithPatch(width: 600, height: 400, patchAt: 470, 280, size: 100)
        let cropped = try ImageProcessors.Crop(.gravity(gravity, width: 200, height: 200)).process(image)
        #expect((cropped.width, cropped.height) == (200, 200))
        let centre = try ImageProcessors.Crop(.gravity(.centre, width: 200, height: 200)).process(image)
        func saturated(_ image: DecodedImage) -> Int {
            var count = 0
            for y in 0..<image.height {
                for x in 0..<image.width where image.pixel(x: x, y: y).red > 190 { count += 1 }
            }
            return count
        }
        #expect(saturated(centre) == 0, "the patch is away from the centre")
        #expect(saturated(cropped) > 5_000, "the \(gravity) crop keeps the patch")
    }

    @Test func circleIsTransparentOutsideAndSmoothAtTheEdge() throws {
        let image = TestImages.pixels(width: 300, height: 200)
        let circle = try ImageProcessors.Circle().process(image)
        #expect((circle.width, circle.height) == (200, 200))
        #expect(circle.pixel(x: 0, y: 0).alpha == 0)
        #expect(circle.pixel(x: 100, y: 100).alpha == 255)
        #expect(circle.pixel(x: 100, y: 0).alpha > 0, "the top of the circle touches the edge")
        let partial = (0..<200).map { circle.pixel(x: $0, y: 30).alpha }.filter { $0 > 0 && $0 < 255 }
        #expect(!partial.isEmpty, "edge pixels are partly covered, not aliased")
    }

    @Test func badParametersFailWithTheProcessorsName() throws {
        let image = TestImages.pixels(width: 10, height: 10)
        #expect(throws: MagpieError.processingFailed(
            processor: "magpie.blur/1?sigma=0.0", reason: "sigma must be above 0 and at most 1000")) {
            _ = try ImageProcessors.GaussianBlur(sigma: 0).process(image)
        }
        #expect(throws: MagpieError.processingFailed(
            processor: "magpie.resize/1?width=0&height=10&mode=fit&upscale=0", reason: "the box must be at least 1x1")) {
            _ = try ImageProcessors.Resize(width: 0, height: 10).process(image)
        }
        #expect(throws: MagpieError.processingFailed(
            processor: "magpie.rounded-corners/1?radius=-1.0", reason: "the radius must be 0 or more")) {
            _ = try ImageProcessors.RoundedCorners(radius: -1).process(image)
        }
    }

    @Test func identifiersNameEveryParameter() {
        let identifiers = [
            ImageProcessors.Resize(width: 10, height: 20).identifier,
            ImageProcessors.Resize(width: 10, height: 20, fit: .fill).identifier,
            ImageProcessors.Resize(width: 10, height: 20, fit: .fill, gravity: .top).identifier,
            ImageProcessors.Resize(width: 10, height: 20, upscale: true).identifier,
            ImageProcessors.Crop(.gravity(.centre, width: 10, height: 20)).identifier,
            ImageProcessors.Crop(.rectangle(x: 0, y: 0, width: 10, height: 20)).identifier,
            ImageProcessors.GaussianBlur(sigma: 1).identifier,
            ImageProcessors.GaussianBlur(sigma: 1.5).identifier,
            ImageProcessors.RoundedCorners(radius: 4).identifier,
        ]
        #expect(Set(identifiers).count == identifiers.count)
        #expect(identifiers.allSatisfy { $0.hasPrefix("magpie.") && $0.contains("/1") }, "versioned")
    }

    /// A resize that scales one axis leaves the other exactly as it was: rows across a horizontal
    /// stretch or shrink, columns down a vertical one. (libvips' resize filtered the axis it left
    /// at scale 1, half a pixel off: a row of 200 became 110.)
    @Test(arguments: [(5, 3, 36, 3), (40, 3, 10, 3), (3, 5, 3, 36), (3, 40, 3, 10)])
    func aResizeAlongOneAxisLeavesTheOtherAsItWas(_ sizes: (Int, Int, Int, Int)) throws {
        let (width, height, targetWidth, targetHeight) = sizes
        let across = height == targetHeight
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                // Bands along the scaled axis: each row (or column) one level, the last far off.
                let line = across ? y : x, last = across ? height - 1 : width - 1
                let level: UInt8 = line == last ? 200 : UInt8(20 + line * 10)
                pixels += [level, level, level, 255]
            }
        }
        let image = DecodedImage(width: width, height: height, pixels: pixels)
        let resized = try ImageProcessors.Resize(width: targetWidth, height: targetHeight, fit: .exact, upscale: true).process(image)
        #expect(resized.width == targetWidth && resized.height == targetHeight)
        for line in 0..<(across ? height : width) {
            let expected = image.pixel(x: across ? 0 : line, y: across ? line : 0).red
            let got = across ? resized.pixel(x: targetWidth / 2, y: line).red : resized.pixel(x: line, y: targetHeight / 2).red
            #expect(got == expected, "line \(line): \(got), drawn \(expected)")
        }
    }
}
