import Foundation
import Magpie
import MagpieTesting
import Testing

/// The layout's steps against Pillow doing the same: exact for the steps that move pixels
/// without resampling (turns, mirrors, canvases), within resampling noise for the rest.
@Suite("Layout against Pillow")
struct LayoutReferenceTests {
    static let photo = "exif-orientation/Landscape_1.jpg"
    static let transparent = "image-webp/gallery2/1_webp_ll.webp"

    static func image(_ path: String) throws -> DecodedImage {
        try VipsDecoder().decode(Array(try Data(contentsOf: Corpus.directory.appendingPathComponent(path))), thumbnail: nil, maximumPixels: .max)
    }

    @Test(arguments: [90, 180, 270])
    func turnsMatchPillowExactly(degrees: Int) throws {
        let image = try Self.image(Self.transparent)
        let turned = try #require(ImageProcessors.Rotate(degrees: degrees)).process(image)
        let reference = try PillowReference.run("rotate", ["\(degrees)"], on: image)
        #expect(turned.width == reference.width && turned.height == reference.height)
        #expect(turned.pixels == reference.pixels)
    }

    @Test(arguments: [(true, false), (false, true), (true, true)])
    func mirrorsMatchPillowExactly(horizontal: Bool, vertical: Bool) throws {
        let image = try Self.image(Self.transparent)
        let flipped = try ImageProcessors.Flip(horizontal: horizontal, vertical: vertical).process(image)
        let reference = try PillowReference.run("flip", [horizontal ? "1" : "0", vertical ? "1" : "0"], on: image)
        #expect(flipped.pixels == reference.pixels)
    }

    @Test func canvasesMatchPillowExactly() throws {
        let image = try Self.image(Self.photo)
        let colour = Colour(red: 10, green: 200, blue: 30, alpha: 128)
        let (width, height) = (image.width + 37, image.height + 20)
        let embedded = try ImageProcessors.Embed(width: width, height: height, x: 30, y: 5, background: colour).process(image)
        let reference = try PillowReference.run("embed", ["\(width)", "\(height)", "30", "5", "10", "200", "30", "128"], on: image)
        #expect(embedded.width == width && embedded.height == height)
        #expect(embedded.pixels == reference.pixels)
    }

    @Test func flattenMatchesPillowsComposite() throws {
        let image = try Self.image(Self.transparent)
        let flat = try ImageProcessors.Flatten(background: Colour(red: 255, green: 128, blue: 0)).process(image)
        let reference = try PillowReference.run("flatten", ["255", "128", "0"], on: image)
        let difference = ImageDifference(flat, reference)
        #expect(difference.maximum <= 1 && difference.meanAlpha == 0, "\(difference)")
    }

    @Test func pixelationAveragesEachBlock() throws {
        let whole = try Self.image(Self.transparent)
        let image = try ImageProcessors.Crop(.rectangle(x: 0, y: 0, width: whole.width / 8 * 8, height: whole.height / 8 * 8)).process(whole)
        let pixelated = try ImageProcessors.Pixelate(size: 8).process(image)
        let reference = try PillowReference.run("pixelate", ["8"], on: image)
        let difference = ImageDifference(pixelated, reference)
        #expect(difference.meanColour < 1 && difference.meanAlpha < 1, "\(difference)")
        // Sides that are not whole blocks are kept.
        let odd = try ImageProcessors.Pixelate(size: 8).process(whole)
        #expect(odd.width == whole.width && odd.height == whole.height)
    }

    /// A fill to a box with an east gravity: Pillow resizes the whole image to the planned
    /// size and cuts the planned window; the layout, which may also shrink on decode, agrees.
    @Test func aFillKeepsThePlannedWindow() throws {
        let image = try Self.image(Self.photo)
        var layout = Layout()
        (layout.width, layout.height, layout.resizing, layout.gravity) = (200, 200, .fill, .anchored(.east))
        let laidOut = try ImageProcessors.Layout(layout).process(image)
        let plan = LayoutPlan(layout, source: .init(width: image.width, height: image.height))
        let scaled = try #require(plan.scaled)
        guard case .rectangle(let x, let y, let width, let height) = try #require(plan.resultCrop) else {
            Issue.record("a fill with a compass gravity cuts a rectangle")
            return
        }
        #expect(laidOut.width == 200 && laidOut.height == 200)
        let reference = try PillowReference.run("fill", ["\(scaled.width)", "\(scaled.height)", "\(x)", "\(y)", "\(width)", "\(height)"], on: image)
        let difference = ImageDifference(laidOut, reference)
        #expect(difference.meanColour < 1.5, "\(difference)")
    }

    /// A layout that only scales the whole image down is decoded straight to its scaled size
    /// (libvips' thumbnail with shrink-on-load), and the layout then has nothing left to resize.
    @Test func aScaleDownIsDoneByTheDecode() throws {
        let bytes = Array(try Data(contentsOf: Corpus.directory.appendingPathComponent(Self.photo)))
        let whole = try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: .max)
        var layout = Layout()
        (layout.width, layout.height, layout.resizing) = (200, 200, .fill)
        let plan = LayoutPlan(layout, source: .init(width: whole.width, height: whole.height))
        let decoded = try VipsDecoder().decode(bytes, options: DecodingOptions(target: .layout(layout)))
        #expect(decoded.width == plan.scaled?.width && decoded.height == plan.scaled?.height)
        #expect(decoded.fullSize == DecodedImage.Size(width: whole.width, height: whole.height))
        let laidOut = try ImageProcessors.Layout(layout).process(decoded)
        let fromWhole = try ImageProcessors.Layout(layout).process(whole)
        #expect(laidOut.width == 200 && laidOut.height == 200)
        let difference = ImageDifference(laidOut, fromWhole)
        #expect(difference.meanColour < 1.5, "\(difference)")
        // Enlarging is left to the layout: the decode keeps the image's size.
        layout.enlarge = true
        (layout.width, layout.height) = (4000, 4000)
        #expect(try VipsDecoder().decode(bytes, options: DecodingOptions(target: .layout(layout))).width == whole.width)
    }

    @Test(arguments: [(20.0, 1.0, 1.0), (0, 1.5, 1), (0, 1, 0), (-30, 0.7, 1.6)])
    func adjustmentsMatchPillow(brightness: Double, contrast: Double, saturation: Double) throws {
        let image = try ImageProcessors.Crop(.rectangle(x: 0, y: 0, width: 200, height: 150)).process(try Self.image(Self.photo))
        let adjusted = try ImageProcessors.Adjust(brightness: brightness, contrast: contrast, saturation: saturation).process(image)
        let reference = try PillowReference.run("adjust", ["\(brightness)", "\(contrast)", "\(saturation)"], on: image)
        let difference = ImageDifference(adjusted, reference)
        #expect(difference.maximum <= 1 && difference.meanAlpha == 0, "\(difference)")
    }

    /// Canvases can ask for far more than the source holds (a 20,000 px box extended, padding
    /// past the largest side): refused with the size, before anything is allocated.
    @Test func anOversizedLayoutIsRefused() throws {
        let image = DecodedImage(width: 80, height: 60, pixels: [UInt8](repeating: 255, count: 80 * 60 * 4))
        var extended = Layout()
        (extended.width, extended.height, extended.extend) = (20_000, 20_000, .centre)
        #expect(throws: MagpieError.self) { try ImageProcessors.Layout(extended).process(image) }
        var padded = Layout()
        padded.padding = .init(top: 0, right: 70_000, bottom: 0, left: 0)
        #expect(throws: MagpieError.self) { try ImageProcessors.Layout(padded).process(image) }
        padded.padding.right = 100
        #expect(try ImageProcessors.Layout(padded).process(image).width == 180)
        // An enlarged fill of a 10,000:1 strip scales it past any size before the cut.
        let strip = DecodedImage(width: 10_000, height: 1, pixels: [UInt8](repeating: 255, count: 10_000 * 4))
        var fill = Layout()
        (fill.width, fill.height, fill.resizing, fill.enlarge) = (8192, 8192, .fill, true)
        #expect(throws: MagpieError.self) { try ImageProcessors.Layout(fill).process(strip) }
    }
}
