import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("Decoding with libvips")
struct DecodingTests {
    static let decoder = VipsDecoder()
    static let limit = 100_000_000

    /// Formats Magpie reads with libvips (8.14 on). APNG, animated GIF, WebP and AVIF sequences
    /// decode as their first frame.
    static let readable: Set = ["png", "apng", "jpeg", "gif", "webp", "avif", "avifs", "heif"]

    static func orientation(of entry: Corpus.Entry) -> Int? {
        guard entry.path.hasPrefix("exif-orientation/") else { return nil }
        let digits = entry.path.split(separator: "/").last?.filter(\.isNumber) ?? ""
        return Int(digits)
    }

    /// Files libvips 8.14.1 with libheif 1.15.1 (Debian 12) cannot read, even through its own
    /// `vips` command: "bad seek" on AVIF with irot/imir transforms and on AVIF sequences. 8.18
    /// reads all but the sequence with alpha, which fails there the same way.
    static var unreadableHere: Set<String> {
        let sequenceWithAlpha = "avif-link-u/star-8bpc-with-alpha.avifs"
        guard Libvips.version.compare("8.15", options: .numeric) == .orderedAscending else { return [sequenceWithAlpha] }
        return [
            "avif-link-u/kimono.rotate90.avif",
            "avif-link-u/kimono.mirror-vertical.rotate270.crop.avif",
            "avif-link-u/star-8bpc.avifs",
            sequenceWithAlpha,
        ]
    }

    /// Sizes after the AVIF files' own transforms, which the manifest's stored sizes are before:
    /// read from their boxes (irot 90° turns 1024x722 upright; the crop's clap box keeps 330x385
    /// before the same turn).
    static let transformedSizes: [String: (width: Int, height: Int)] = [
        "avif-link-u/kimono.rotate90.avif": (722, 1024),
        "avif-link-u/kimono.mirror-vertical.rotate270.crop.avif": (385, 330),
    ]

    @Test(arguments: Corpus.entries(expected: "valid").filter { readable.contains($0.format) })
    func validFilesDecodeToTheirSize(_ entry: Corpus.Entry) throws {
        if Self.unreadableHere.contains(entry.path) {
            withKnownIssue("libvips \(Libvips.version) cannot decode \(entry.path)") {
                try checkSize(entry)
            }
            return
        }
        try checkSize(entry)
    }

    private func checkSize(_ entry: Corpus.Entry) throws {
        let bytes = try entry.bytes()
        let image: DecodedImage
        do {
            image = try Self.decoder.decode(bytes, thumbnail: nil, maximumPixels: Self.limit)
        } catch {
            // The manifest allows a clear refusal for hard-but-legal files (12-bit,
            // arithmetic-coded, lossless JPEG); anything else must decode.
            let hard = ["12-bit", "arithmetic", "lossless"].contains { entry.notes.localizedCaseInsensitiveContains($0) }
            #expect(hard, "\(entry.path): \(error)")
            return
        }
        let swapped = (Self.orientation(of: entry) ?? 1) >= 5
        let stored = (width: try #require(entry.width), height: try #require(entry.height))
        let upright = Self.transformedSizes[entry.path] ?? (swapped ? (stored.height, stored.width) : stored)
        #expect(image.width == upright.width, "\(entry.path)")
        #expect(image.height == upright.height, "\(entry.path)")
        #expect(image.pixels.count == image.width * image.height * 4)
    }

    @Test(arguments: Corpus.entries(expected: "invalid"))
    func invalidFilesFailClearly(_ entry: Corpus.Entry) throws {
        let bytes = try entry.bytes()
        #expect(throws: MagpieError.self, "\(entry.path)") {
            try Self.decoder.decode(bytes, thumbnail: nil, maximumPixels: Self.limit)
        }
    }

    @Test(arguments: Corpus.entries(expected: "partial"))
    func partialFilesDecodeOrFail(_ entry: Corpus.Entry) throws {
        let bytes = try entry.bytes()
        do {
            let image = try Self.decoder.decode(bytes, thumbnail: nil, maximumPixels: Self.limit)
            #expect(image.pixels.count == image.width * image.height * 4)
        } catch {
            #expect(!error.description.isEmpty)
        }
    }

    @Test func corpusIsPresent() {
        #expect(Corpus.entries.count > 200, "expected ../shared/corpus/MANIFEST.tsv beside the checkout")
    }

    @Test func exifOrientationIsApplied() throws {
        let entries = Corpus.entries.filter { Self.orientation(of: $0) != nil && $0.expected == "valid" }
        #expect(entries.count >= 16)
        for entry in entries {
            let image = try Self.decoder.decode(entry.bytes(), thumbnail: .init(width: 100, height: 100), maximumPixels: Self.limit)
            let upright = (Self.orientation(of: entry) ?? 1) >= 5 ? (entry.height!, entry.width!) : (entry.width!, entry.height!)
            // The thumbnail keeps the upright aspect ratio.
            #expect((image.width > image.height) == (upright.0 > upright.1), "\(entry.path)")
        }
    }

    @Test(arguments: [(50_000, 50_000, "png"), (50_000, 50_000, "gif")])
    func declaredBombsAreRefusedBeforeDecoding(width: Int, height: Int, kind: String) throws {
        let bytes = kind == "png" ? TestImages.pngBomb(width: width, height: height) : TestImages.gifBomb(width: width, height: height)
        // The error names the declared size: it comes from the header check, before any pixel
        // (decoding 2.5 gigapixels would take minutes and 10 GB).
        #expect(throws: MagpieError.imageTooLarge(width: width, height: height, limit: Self.limit)) {
            try Self.decoder.decode(bytes, thumbnail: nil, maximumPixels: Self.limit)
        }
        #expect(throws: MagpieError.imageTooLarge(width: width, height: height, limit: Self.limit)) {
            try Self.decoder.decode(bytes, thumbnail: .init(width: 64, height: 64), maximumPixels: Self.limit)
        }
    }

    @Test func thumbnailsMeetTheirBoxAsTheirFitSays() throws {
        let bytes = try TestImages.texture(width: 1200, height: 800)
        func size(_ width: Int, _ height: Int, _ fit: Fit) throws -> [Int] {
            let image = try Self.decoder.decode(bytes, thumbnail: .init(width: width, height: height, fit: fit), maximumPixels: Self.limit)
            return [image.width, image.height]
        }
        #expect(try size(256, 256, .fit) == [256, 171])
        #expect(try size(256, 256, .fill) == [256, 256])
        #expect(try size(256, 256, .cover) == [384, 256])
        #expect(try size(300, 100, .exact) == [300, 100])
        #expect(try size(256, 256, .crop) == [256, 256])
        #expect(try size(4000, 4000, .fit) == [1200, 800], "never enlarged")
        #expect(try size(4000, 100, .exact) == [1200, 100], "never enlarged")
        #expect(try size(300, 0, .exact) == [300, 800], "a side not given is the image's")
        let whole = try Self.decoder.decode(bytes, thumbnail: nil, maximumPixels: Self.limit)
        let cut = try Self.decoder.decode(bytes, thumbnail: .init(width: 256, height: 256, fit: .crop), maximumPixels: Self.limit)
        #expect(cut.pixels == (try ImageProcessors.Crop(.rectangle(x: 472, y: 272, width: 256, height: 256)).process(whole)).pixels)
    }

    /// JPEG thumbnails are decoded at libjpeg's smallest scale that still covers the box, and
    /// progressive ones reduced 8 times or more from their DC scans only; the result must look
    /// like the full image downsampled, whatever the orientation and fit.
    @Test(arguments: Fit.allCases)
    func jpegThumbnailsMatchTheFullImageDownsampled(_ mode: Fit) throws {
        let rotated = Corpus.entries.filter { [1, 3, 6, 8].contains(Self.orientation(of: $0)) && $0.expected == "valid" }
        #expect(rotated.count >= 4)
        var sources = try rotated.map { try $0.bytes() }
        let baseline = try TestImages.texture(width: 2400, height: 1600, seed: 5)
        let progressive = try TestImages.texture(width: 2400, height: 1600, seed: 5, progressive: true)
        sources += [baseline, progressive] + [3, 6, 8].map { TestImages.jpeg(progressive, orientation: $0) }
        for bytes in sources {
            // PNG has no scaled decode: libvips resamples the full upright pixels.
            let full = try Self.decoder.decode(bytes, thumbnail: nil, maximumPixels: Self.limit)
            let png = try ImageEncoder().encode(full, as: .png)
            for box in [ImageRequest.Thumbnail(width: 256, height: 256, fit: mode), .init(width: 100, height: 60, fit: mode)] {
                let thumbnail = try Self.decoder.decode(bytes, thumbnail: box, maximumPixels: Self.limit)
                let reference = try Self.decoder.decode(png, thumbnail: box, maximumPixels: Self.limit)
                #expect(thumbnail.width == reference.width && thumbnail.height == reference.height, "\(box)")
                guard thumbnail.pixels.count == reference.pixels.count else { continue }
                let difference = zip(thumbnail.pixels, reference.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
                let mean = Double(difference) / Double(thumbnail.pixels.count)
                // Measured 0.5–1.4 (a mean over all channels, in levels of 255); a wrong orientation,
                // crop or scale gives tens.
                #expect(mean < 4, "mean difference \(mean) for \(box)")
            }
        }
    }

    /// What the DC-only path implies, and proof that it is taken: a progressive JPEG cut
    /// after its DC scans still gives the same small thumbnail, while a full decode fails.
    @Test func progressiveThumbnailsNeedOnlyTheDCScans() throws {
        let whole = try TestImages.texture(width: 2400, height: 1600, seed: 8, progressive: true)
        let cut = Array(whole.prefix(whole.count / 2))
        let box = ImageRequest.Thumbnail(width: 200, height: 200)
        let expected = try Self.decoder.decode(whole, thumbnail: box, maximumPixels: Self.limit)
        let fromCut = try Self.decoder.decode(cut, thumbnail: box, maximumPixels: Self.limit)
        #expect(fromCut.width == expected.width && fromCut.height == expected.height)
        #expect(fromCut.pixels == expected.pixels)
        #expect(throws: MagpieError.self) { try Self.decoder.decode(cut, thumbnail: nil, maximumPixels: Self.limit) }
        // A box that needs more than the DC reads the whole file, and so notices the cut.
        #expect(throws: MagpieError.self) { try Self.decoder.decode(cut, thumbnail: .init(width: 800, height: 800), maximumPixels: Self.limit) }
    }

    @Test func outputIsStraightRGBA() throws {
        let source = TestImages.pixels(width: 4, height: 2, seed: 7)
        let png = try ImageEncoder().encode(source, as: .png)
        let decoded = try Self.decoder.decode(png, thumbnail: nil, maximumPixels: Self.limit)
        #expect(decoded.pixels == source.pixels)
    }

    @Test func nonImagesAreUnsupported() {
        #expect(throws: MagpieError.self) {
            try Self.decoder.decode(Array("<html>not found</html>".utf8), thumbnail: nil, maximumPixels: Self.limit)
        }
        #expect(throws: MagpieError.self) { try Self.decoder.decode([], thumbnail: nil, maximumPixels: Self.limit) }
        // A PDF and a Radiance HDR file are formats libvips may read (Debian's 8.14 does, the
        // 8.18 Magpie installs does not), not Magpie's: the error names what they are, or says
        // only that they are none of Magpie's formats.
        let refused = [
            ("a PDF document", Array("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".utf8)),
            ("a Radiance HDR image", Array("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 2\n".utf8) + [UInt8](repeating: 0, count: 16)),
        ]
        for (name, bytes) in refused {
            #expect {
                try Self.decoder.decode(bytes, thumbnail: nil, maximumPixels: Self.limit)
            } throws: { error in
                guard case .unsupportedFormat(let text) = error as? MagpieError else { return false }
                return text.hasSuffix(" or SVG image") || text.hasSuffix(" or SVG image (it is \(name), which Magpie does not decode)")
            }
        }
    }
}
