@testable import Magpie
import Testing

/// An image laid on a canvas made from itself: its average visible colour, or itself blurred.
@Suite("Backdrops")
struct BackdropTests {
    /// Left half opaque red, right half transparent blue.
    static let halfRed = DecodedImage(
        width: 4, height: 2, pixels: Array([[UInt8]](repeating: [255, 0, 0, 255, 255, 0, 0, 255, 0, 0, 255, 0, 0, 0, 255, 0], count: 2).joined()))

    @Test func theAverageIsOfWhatShows() throws {
        let laid = try ImageProcessors.Backdrop(.average, width: 8, height: 6).process(Self.halfRed)
        #expect(laid.width == 8 && laid.height == 6)
        #expect(laid.pixel(x: 0, y: 0) == (255, 0, 0, 255), "the transparent blue does not count")
        // Centred: the image's left column lands at x 2, y 2; its transparent pixels show the canvas.
        #expect(laid.pixel(x: 2, y: 2) == (255, 0, 0, 255) && laid.pixel(x: 5, y: 3) == (255, 0, 0, 255))
        #expect(ImageProcessors.Backdrop.averageColour(of: DecodedImage(width: 1, height: 1, pixels: [9, 9, 9, 0])) == .black)
    }

    @Test func aBlurredBackdropIsTheImageStretched() throws {
        let stripes = DecodedImage(
            width: 20, height: 10, pixels: (0..<200).flatMap { index in index % 20 < 10 ? [0, 0, 0, 255] : [250, 250, 250, 255] as [UInt8] })
        let laid = try ImageProcessors.Backdrop(.blurred(sigma: 8), width: 60, height: 40).process(stripes)
        #expect(laid.width == 60 && laid.height == 40)
        let (left, right) = (laid.pixel(x: 2, y: 20), laid.pixel(x: 57, y: 20))
        #expect(left.alpha == 255 && left.red < 90 && right.red > 160, "the stretched image's dark and light halves, blurred: \(left), \(right)")
        #expect(laid.pixel(x: 25, y: 20) == (0, 0, 0, 255) && laid.pixel(x: 35, y: 20) == (250, 250, 250, 255), "the image itself, centred")
    }

    @Test func aCanvasNeverCropsAndIsBounded() throws {
        #expect(try ImageProcessors.Backdrop(.average, width: 2, height: 1).process(Self.halfRed).width == 4)
        #expect(throws: MagpieError.self) { try ImageProcessors.Backdrop(.average, width: 70_000, height: 2).process(Self.halfRed) }
    }
}
