import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// Ultra HDR JPEGs as Android phones write them (an SDR JPEG with an ISO 21496-1 gain map in an
/// MPF secondary image), made by libultrahdr (PyPI's imagecodecs), some turned by EXIF, and a
/// stereo camera's MPO made by Pillow: each is the JPEG it is to Magpie, through the library and
/// both of the proxy's grammars (`magpie fetch` in FetchCommandTests), and looks like the SDR
/// rendition libultrahdr's own decoder gives (the MPO: its first image, as Pillow reads it).
@Suite("Ultra HDR and MPO photos")
struct UltraHDRTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Reference/ultrahdr_photos.py").standardizedFileURL

    struct Photo: Decodable {
        let file: String
        let reference: String
        /// Upright.
        let width: Int
        let height: Int
        /// 0: no EXIF.
        let orientation: Int
        let gainMap: Bool
    }

    struct Photos {
        let folder: URL
        let photos: [(name: String, photo: Photo)]

        func bytes(_ photo: Photo) throws -> [UInt8] { [UInt8](try Data(contentsOf: folder.appendingPathComponent(photo.file))) }
        func reference(_ photo: Photo) -> URL { folder.appendingPathComponent(photo.reference) }
    }

    /// Made once a test process, in a folder of the system's temporary one that stays: the tests
    /// only read the photos, and write their outputs beside them under names of their own.
    static let photos = Result { try make() }

    static func make() throws -> Photos {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-ultrahdr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let made = try decoder.decode([String: Photo].self, from: PythonScript.run(script, ["make", folder.path]))
        return Photos(folder: folder, photos: made.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// What the script reads of one output: its format and size as Pillow reads them, and the
    /// mean difference (0-255) from the reference resized to that size, and from the reference
    /// turned half a turn.
    struct Comparison: Decodable {
        let format: String
        let width: Int
        let height: Int
        let error: Double
        let turned: Double
    }

    /// Compares `outputs` (files) with `reference` in one run of the script.
    static func compare(_ outputs: [URL], with reference: URL) throws -> [Comparison] {
        try JSONDecoder().decode([Comparison].self, from: PythonScript.run(script, ["compare", reference.path] + outputs.map(\.path)))
    }

    /// Holds each output to the reference: its format and size as expected, its pixels close to
    /// the reference's (measured 0.03-1.5 levels in JPEG, WebP, AVIF and PNG at these sizes;
    /// the raw SDR values without the Display P3 profile applied were 7.8-8.0 away), and far
    /// from the reference turned (measured 42-88): the picture shows a wrong orientation.
    static func expectClose(
        _ comparisons: [Comparison], formats: [String], width: Int, height: Int, _ label: String
    ) {
        #expect(comparisons.count == formats.count, "\(label)")
        for (comparison, format) in zip(comparisons, formats) {
            #expect(comparison.format == format, "\(label): \(comparison.format), not \(format)")
            #expect(comparison.width == width && comparison.height == height, "\(label) \(format): \(comparison.width)x\(comparison.height)")
            #expect(comparison.error < 4, "\(label) \(format): \(comparison.error) levels from libultrahdr's SDR rendition")
            #expect(comparison.turned > 20, "\(label) \(format): the picture tells no orientation (\(comparison.turned))")
        }
    }

    /// The size a fit in `box` x `box` gives: the longer side `box`, the other rounded.
    static func fitted(_ photo: Photo, in box: Int) -> (width: Int, height: Int) {
        let scale = Double(box) / Double(max(photo.width, photo.height))
        return (Int((Double(photo.width) * scale).rounded()), Int((Double(photo.height) * scale).rounded()))
    }

    static let formats: [(format: ImageFormat, pillow: String)] = [(.jpeg, "JPEG"), (.webp, "WEBP"), (.avif, "AVIF"), (.png, "PNG")]

    @Test func eachIsReadAsAJPEGWithItsGainMapTold() throws {
        let made = try Self.photos.get()
        #expect(made.photos.count == 5)
        for (name, photo) in made.photos {
            let bytes = try made.bytes(photo)
            #expect(ImageFormat(sniffing: bytes) == .jpeg, "\(name)")
            let info = try ImageInfo(reading: bytes)
            #expect(info.format == .jpeg, "\(name)")
            #expect(info.width == photo.width && info.height == photo.height, "\(name): \(info.width)x\(info.height)")
            #expect(info.orientation == max(1, photo.orientation), "\(name)")
            #expect(info.hasGainMap == photo.gainMap, "\(name)")
            #expect(info.frameCount == 1, "\(name)")
        }
    }

    /// Whole, shrunk while loading (libjpeg's scale-on-load, as for any JPEG) and refused above
    /// the pixel limit from its header.
    @Test func theDecoderTreatsItAsAnyJPEG() throws {
        let made = try Self.photos.get()
        let decoder = VipsDecoder()
        for (name, photo) in made.photos {
            let bytes = try made.bytes(photo)
            let whole = try decoder.decode(bytes, options: DecodingOptions(maximumPixels: 10_000_000))
            #expect(whole.sourceFormat == .jpeg && whole.width == photo.width && whole.height == photo.height, "\(name)")
            let resize = ImageProcessors.Resize(width: 40, height: 40, fit: .fit)
            let reduced = try decoder.decode(bytes, options: DecodingOptions(target: .layout(resize.layout), maximumPixels: 10_000_000))
            #expect(reduced.fullSize == DecodedImage.Size(width: photo.width, height: photo.height), "\(name): not shrunk while loading")
            #expect(reduced.width <= photo.width / 2 && reduced.height <= photo.height / 2, "\(name): \(reduced.width)x\(reduced.height)")
            #expect {
                try decoder.decode(bytes, options: DecodingOptions(maximumPixels: photo.width * photo.height - 1))
            } throws: { error in
                if case .imageTooLarge = error as? MagpieError { return true }
                return false
            }
        }
    }

    /// JPEGs whose first segments are unusual reach the JPEG decoder, whichever loader libvips
    /// would guess: the same pixels as the file they were made from, whose scan they share.
    @Test func unusualJPEGsDecodeAsThePlainFile() throws {
        let plain = try TestImages.texture(width: 96, height: 64, format: .jpeg, seed: 3)
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        var rest = Array(plain.dropFirst(2))
        if rest.starts(with: [0xFF, 0xE0]) { rest.removeFirst(2 + Int(rest[2]) << 8 + Int(rest[3])) }
        let multiPicture = Array("MPF".utf8) + [0, 0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 0]
        let variants: [(String, [UInt8])] = [
            ("no JFIF segment", [0xFF, 0xD8] + rest),
            ("a comment first", [0xFF, 0xD8] + segment(0xFE, Array("written by hand".utf8)) + rest),
            ("fill bytes before a marker", [0xFF, 0xD8, 0xFF, 0xFF] + rest),
            ("a C2PA manifest's JUMBF box in APP11", [0xFF, 0xD8] + segment(0xEB, Array("JP".utf8) + [0, 1, 0, 0, 0, 1] + Array("jumb".utf8)) + rest),
            ("an empty MPF index", [0xFF, 0xD8] + segment(0xE2, multiPicture) + rest),
            // Announced, so told, though the map's image is missing: only the header is read.
            ("Ultra HDR's XMP and an empty MPF index", [0xFF, 0xD8]
                + segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta hdrgm:Version=\"1.0\"/>".utf8))
                + segment(0xE2, multiPicture) + rest),
        ]
        let expected = try VipsDecoder().decode(plain, thumbnail: nil, maximumPixels: 10_000)
        for (name, bytes) in variants {
            #expect(ImageFormat(sniffing: bytes) == .jpeg, "\(name)")
            let info = try ImageInfo(reading: bytes)
            #expect(info.format == .jpeg && info.width == 96 && info.height == 64 && info.hasGainMap == name.hasPrefix("Ultra"), "\(name)")
            let decoded = try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: 10_000)
            #expect(decoded.sourceFormat == .jpeg && decoded.pixels == expected.pixels, "\(name)")
        }
    }

    /// The gain map's announcement is read in place: a file cut before its header ends or a
    /// segment longer than the file announces none; 200,000 empty segments before the real ones
    /// are walked through.
    @Test func damagedSegmentsAnnounceNoGainMap() throws {
        let made = try Self.photos.get()
        let photo = try #require(made.photos.first { $0.name == "plain" }?.photo)
        let bytes = try made.bytes(photo)
        #expect(try ImageInfo(reading: bytes).hasGainMap)
        // libultrahdr writes the ISO 21496-1 segment at 2-37 and MPF at 38-127; the scan starts
        // at 1,353. Cut in the scan, the header is whole and still announces the map.
        for cut in [3, 6, 40, 100, 200] {
            #expect((try? ImageInfo(reading: Array(bytes.prefix(cut))))?.hasGainMap != true, "cut at \(cut)")
        }
        #expect(try ImageInfo(reading: Array(bytes.prefix(2_000))).hasGainMap)
        // The first segment's length says more bytes than the file has.
        var overlong = bytes
        (overlong[4], overlong[5]) = (0xFF, 0xF0)
        #expect((try? ImageInfo(reading: overlong))?.hasGainMap != true)
        var many: [UInt8] = [0xFF, 0xD8]
        for index in 0..<200_000 { many += [0xFF, index.isMultiple(of: 2) ? 0xE1 : 0xE2, 0, 2] }
        #expect((try? ImageInfo(reading: many + bytes.dropFirst(2)))?.hasGainMap == true)
    }

    @Test func theLibraryLoadsAndEncodesEveryOne() async throws {
        let made = try Self.photos.get()
        try await withTestFixture { fixture in
            for (name, photo) in made.photos {
                fixture.server.serve("/\(name).jpg", .image(try made.bytes(photo)))
                let url = fixture.server.url("/\(name).jpg")
                let whole = try await fixture.pipeline.image(for: url)
                #expect(whole.width == photo.width && whole.height == photo.height, "\(name)")
                let request = ImageRequest(url: url, thumbnail: .init(width: 240, height: 240, fit: .fit))
                let thumbnail = try await fixture.pipeline.image(for: request).image
                let size = Self.fitted(photo, in: 240)
                #expect(thumbnail.width == size.width && thumbnail.height == size.height, "\(name): \(thumbnail.width)x\(thumbnail.height)")
                var outputs: [URL] = []
                for (format, _) in Self.formats {
                    let encoded = try await fixture.pipeline.encodedImage(for: request, encoding: EncodingRequest(format: .fixed(format)))
                    let output = made.folder.appendingPathComponent("library-\(name).\(format.rawValue)")
                    try Data(encoded.data).write(to: output)
                    outputs.append(output)
                }
                Self.expectClose(try Self.compare(outputs, with: made.reference(photo)), formats: Self.formats.map(\.pillow),
                                 width: size.width, height: size.height, "library, \(name)")
            }
        }
    }

    @Test func theProxyServesEveryOneInBothGrammars() async throws {
        let made = try Self.photos.get()
        try await withProxyFixture(configure: { $0.allowsUnsignedURLs = true }) { fixture in
            for (name, photo) in made.photos {
                fixture.origin.serve("/\(name).jpg", .image(try made.bytes(photo)))
                var outputs: [URL] = []
                for (format, _) in Self.formats {
                    let imgproxy = try await fixture.get(fixture.path("/\(name).jpg", "rs:fit:240:240/f:\(format.rawValue)"))
                    let thumbor = try await fixture.get(
                        "/unsafe/fit-in/240x240/filters:format(\(format.rawValue))/" + fixture.thumborImage("/\(name).jpg"))
                    for (grammar, reply) in [("imgproxy", imgproxy), ("thumbor", thumbor)] {
                        #expect(reply.status == 200, "\(grammar), \(name), \(format): \(reply.text)")
                        let output = made.folder.appendingPathComponent("\(grammar)-\(name).\(format.rawValue)")
                        try Data(reply.body).write(to: output)
                        outputs.append(output)
                    }
                }
                let size = Self.fitted(photo, in: 240)
                Self.expectClose(try Self.compare(outputs, with: made.reference(photo)),
                                 formats: Self.formats.flatMap { [$0.pillow, $0.pillow] }, width: size.width, height: size.height,
                                 "proxy, \(name)")
                // imgproxy's /info and thumbor's meta/ describe the JPEG, upright.
                let info = try await fixture.get("/info" + fixture.path("/\(name).jpg", ""))
                let described = try JSONSerialization.jsonObject(with: Data(info.body)) as? [String: Any]
                #expect(described?["format"] as? String == "jpeg", "\(name): \(info.text)")
                #expect(described?["width"] as? Int == photo.width && described?["height"] as? Int == photo.height, "\(name): \(info.text)")
                let meta = try await fixture.get("/unsafe/meta/100x100/" + fixture.thumborImage("/\(name).jpg"))
                let source = ((try JSONSerialization.jsonObject(with: Data(meta.body)) as? [String: Any])?["thumbor"] as? [String: Any])?["source"] as? [String: Any]
                #expect(source?["width"] as? Int == photo.width && source?["height"] as? Int == photo.height, "\(name): \(meta.text)")
            }
        }
    }
}
