import Foundation
import Magpie
import MagpieTesting
import Testing

/// The one geometry a decode is handed: worked out once from a request, and resolved against
/// the image's header by the decoder when the caller has not read it.
@Suite("Decode target")
struct DecodeTargetTests {
    static let url = URL(string: "https://example.com/photo.jpg")!

    @Test func theThumbnailWinsThenTheFirstResizeOrLayout() {
        let box = ImageRequest.Thumbnail(width: 100, height: 80, fit: .fill)
        let resize = ImageProcessors.Resize(width: 300, height: 200, fit: .cover)
        var layout = Layout()
        (layout.width, layout.height) = (300, 200)
        #expect(DecodeTarget(ImageRequest(url: Self.url)) == .whole)
        #expect(DecodeTarget(ImageRequest(url: Self.url, thumbnail: box, processors: [resize])) == .thumbnail(box))
        #expect(DecodeTarget(ImageRequest(url: Self.url, processors: [resize, .blur(sigma: 2)])) == .layout(resize.layout))
        #expect(DecodeTarget(ImageRequest(url: Self.url, processors: [.layout(layout)])) == .layout(layout))
        // Only the first processor sizes the decode; a crop resize does not scale.
        #expect(DecodeTarget(ImageRequest(url: Self.url, processors: [.blur(sigma: 2), resize])) == .whole)
        #expect(DecodeTarget(ImageRequest(url: Self.url, processors: [.resize(width: 10, height: 10, fit: .crop)])) == .whole)
    }

    @Test func aLayoutThatOnlyScalesDownDecodesStraightToItsSize() throws {
        let bytes = try TestImages.texture(width: 800, height: 600, format: .jpeg)
        var layout = Layout()
        (layout.width, layout.height) = (200, 200)
        let scaled = try VipsDecoder().decode(bytes, options: DecodingOptions(target: .layout(layout)))
        #expect((scaled.width, scaled.height) == (200, 150))
        #expect(scaled.fullSize == DecodedImage.Size(width: 800, height: 600))
        #expect(DecodingOptions(target: .scaled(to: .init(width: 200, height: 150), whole: .init(width: 800, height: 600))).thumbnail
            == ImageRequest.Thumbnail(width: 200, height: 150, fit: .exact))
        // Enlarging is not scaling down: every pixel, no whole size to say.
        layout.enlarge = true
        (layout.width, layout.height) = (1600, 1600)
        let whole = try VipsDecoder().decode(bytes, options: DecodingOptions(target: .layout(layout)))
        #expect((whole.width, whole.height, whole.fullSize) == (800, 600, nil))
    }

    /// An angle that is no multiple of 90 degrees turns nothing (``ImageProcessors/Rotate``), so
    /// the decode is sized for the image as it is, not as if turned a quarter; a quarter turn
    /// fills the box with the image's height across.
    @Test func anAngleThatTurnsNothingSizesTheDecodeUnturned() throws {
        let bytes = try TestImages.texture(width: 800, height: 600, format: .jpeg)
        var layout = Layout()
        (layout.width, layout.height, layout.resizing) = (200, 100, .fill)
        var unturned: [UInt8] = []
        for rotation in [0, 45, 90, -90] {
            layout.rotation = rotation
            let scaled = try VipsDecoder().decode(bytes, options: DecodingOptions(target: .layout(layout)))
            // 800 x 600 filling 200 x 100: a quarter of each side; turned, 600 x 800 a third.
            let expected = rotation % 180 == 0 || rotation == 45 ? (200, 150) : (267, 200)
            #expect((scaled.width, scaled.height) == expected, "\(rotation) degrees")
            let laidOut = try ImageProcessors.Layout(layout).process(scaled)
            #expect((laidOut.width, laidOut.height) == (200, 100), "\(rotation) degrees")
            // An angle that turns nothing makes the unturned layout's pixels, resampled once.
            if rotation == 0 { unturned = laidOut.pixels }
            if rotation == 45 { #expect(laidOut.pixels == unturned) }
        }
    }

    @Test func aCropBoxIsCutFromTheWholeImage() throws {
        let bytes = try TestImages.texture(width: 400, height: 300, format: .png)
        let cut = try VipsDecoder().decode(bytes, options: DecodingOptions(target: .thumbnail(.init(width: 100, height: 50, fit: .crop))))
        let whole = try VipsDecoder().decode(bytes, options: DecodingOptions())
        let centre = try ImageProcessors.Crop(.rectangle(x: 150, y: 125, width: 100, height: 50)).process(whole)
        #expect((cut.width, cut.height) == (100, 50))
        #expect(cut.pixels == centre.pixels)
    }
}
