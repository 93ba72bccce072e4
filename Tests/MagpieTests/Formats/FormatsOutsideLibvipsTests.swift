import Foundation
import Magpie
import MagpieOrigin
import MagpieTesting
import Testing

/// The formats the installed libvips does not read or write: BMP and ICO, read with the
/// distribution's stb_image (and libvips for an icon's PNG entries) and written with
/// stb_image_write; JPEG XL with the system's libjxl; HEIC written with the system's libheif.
/// Pillow and libjxl's own tools are the independent readers each is compared with. And SVG,
/// which libvips renders with librsvg only for Magpie's bytes, fed hostile documents.
@Suite("BMP, ICO, JPEG XL, HEIC and SVG")
struct FormatsOutsideLibvipsTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Reference/pillow_bitmaps.py").standardizedFileURL

    struct Made {
        let folder: URL
        let files: [String: (name: String, width: Int, height: Int)]
    }

    static func make() throws -> Made {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-bitmaps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let printed = try JSONSerialization.jsonObject(with: PythonScript.run(script, ["make", folder.path])) as? [String: [Any]] ?? [:]
        var files: [String: (name: String, width: Int, height: Int)] = [:]
        for (variant, fields) in printed {
            guard let name = fields[0] as? String, let width = fields[1] as? Int, let height = fields[2] as? Int else { continue }
            files[variant] = (name, width, height)
        }
        return Made(folder: folder, files: files)
    }

    @Test func everyVariantDecodesAsPillowReadsIt() throws {
        let made = try Self.make()
        defer { try? FileManager.default.removeItem(at: made.folder) }
        #expect(made.files.count == 12)
        for (variant, file) in made.files.sorted(by: { $0.key < $1.key }) {
            let bytes = [UInt8](try Data(contentsOf: made.folder.appendingPathComponent(file.name)))
            let expectedFormat: ImageFormat = variant.hasPrefix("ico") ? .ico : .bmp
            #expect(ImageFormat(sniffing: bytes) == expectedFormat, "\(variant)")
            let decoded = try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: 1_000_000)
            #expect(decoded.sourceFormat == expectedFormat, "\(variant)")
            #expect(decoded.width == file.width && decoded.height == file.height, "\(variant): \(decoded.width)x\(decoded.height)")
            var pillow = [UInt8](try Data(contentsOf: made.folder.appendingPathComponent(variant + ".rgba")))
            if variant == "bmp-32bit" {
                // Pillow drops the alpha a 32-bit bitmap without bit fields keeps in its fourth
                // byte; Magpie keeps it, as browsers and imgproxy do: the source's, 96 on the right.
                for row in 0..<file.height {
                    for column in file.width / 2..<file.width { pillow[(row * file.width + column) * 4 + 3] = 96 }
                }
            }
            let differing = zip(decoded.pixels, pillow).filter { $0 != $1 }.count
            #expect(decoded.pixels.count == pillow.count && differing == 0, "\(variant): \(differing) bytes differ from Pillow's")
        }
        // The mask alone makes some of the 24-bit icon's pixels transparent.
        let masked = try VipsDecoder().decode([UInt8](try Data(contentsOf: made.folder.appendingPathComponent("ico-masked.ico"))), thumbnail: nil, maximumPixels: 10_000)
        #expect(stride(from: 3, to: masked.pixels.count, by: 4).contains { masked.pixels[$0] == 0 })
    }

    @Test func aThumbnailIsDecodedFromTheBitmap() throws {
        let made = try Self.make()
        defer { try? FileManager.default.removeItem(at: made.folder) }
        for variant in ["bmp-24bit", "ico-png", "ico-bitmap"] {
            let bytes = [UInt8](try Data(contentsOf: made.folder.appendingPathComponent(made.files[variant]!.name)))
            let decoded = try VipsDecoder().decode(bytes, thumbnail: ImageRequest.Thumbnail(width: 20, height: 20), maximumPixels: 1_000_000)
            #expect(max(decoded.width, decoded.height) == 20, "\(variant): \(decoded.width)x\(decoded.height)")
        }
    }

    /// A bitmap header that declares more pixels than allowed is refused from the header, before
    /// anything is allocated; damaged files are errors, never crashes.
    @Test func hostileBitmapsAreRefused() throws {
        var huge = Self.bitmapHeader(width: 100_000, height: 100_000, bits: 24)
        huge += [UInt8](repeating: 0, count: 64)
        #expect {
            try VipsDecoder().decode(huge, thumbnail: nil, maximumPixels: 50_000_000)
        } throws: { error in
            if case .imageTooLarge = error as? MagpieError { return true }
            return false
        }
        // An icon whose only entry lies past the end of the file.
        var outside: [UInt8] = [0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0]
        outside += Self.little32(4000) + Self.little32(22) + [UInt8](repeating: 0, count: 64)
        #expect(throws: MagpieError.self) { try VipsDecoder().decode(outside, thumbnail: nil, maximumPixels: 1_000_000) }
        // An icon whose bitmap entry declares rows its bytes do not hold.
        var cut: [UInt8] = [0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 32, 0] + Self.little32(60) + Self.little32(22)
        cut += Self.little32(40) + Self.little32(30_000) + Self.little32(60_000) + [1, 0, 32, 0] + [UInt8](repeating: 0, count: 24)
        cut += [UInt8](repeating: 7, count: 20)
        #expect(throws: MagpieError.self) { try VipsDecoder().decode(cut, thumbnail: nil, maximumPixels: 10_000_000_000) }
        // A run-length-coded bitmap whose deltas move far past its rows, then runs: drawn inside.
        var palette: [UInt8] = []
        for index in 0..<256 { palette += [UInt8(index), UInt8(index), UInt8(index), 0] }
        var coded: [UInt8] = []
        for _ in 0..<100_000 { coded += [0, 2, 255, 0] }
        coded += [200, 7, 0, 0, 4, 9, 0, 1]
        var rle = Array("BM".utf8) + Self.little32(0) + Self.little32(0) + Self.little32(54 + 1024)
        rle += Self.little32(40) + Self.little32(8) + Self.little32(2) + [1, 0, 8, 0] + Self.little32(1) + Self.little32(coded.count)
        rle += Self.little32(2835) + Self.little32(2835) + Self.little32(256) + Self.little32(0) + palette + coded
        let drawn = try VipsDecoder().decode(rle, thumbnail: nil, maximumPixels: 1_000)
        // Rows are stored bottom up: the first row's run fell past its end, the second's is on top.
        #expect(drawn.width == 8 && drawn.height == 2 && Array(drawn.pixels[32..<36]) == [0, 0, 0, 255])
        #expect(Array(drawn.pixels.prefix(16)) == [UInt8](repeating: 9, count: 16).enumerated().map { $0.offset % 4 == 3 ? 255 : 9 })
        #expect(Array(drawn.pixels[16..<20]) == [0, 0, 0, 255])
    }

    /// Every file of the set with bytes flipped and cut: each decodes or fails, none crashes.
    @Test func damagedBitmapsFailCleanly() throws {
        let made = try Self.make()
        defer { try? FileManager.default.removeItem(at: made.folder) }
        var generator = SystemRandomNumberGenerator()
        var failures = 0
        for file in made.files.values {
            let original = [UInt8](try Data(contentsOf: made.folder.appendingPathComponent(file.name)))
            for round in 0..<40 {
                var bytes = round.isMultiple(of: 4) ? Array(original.prefix(Int.random(in: 1..<original.count, using: &generator))) : original
                for _ in 0..<4 {
                    let index = Int.random(in: 0..<min(bytes.count, 80), using: &generator)
                    bytes[index] = UInt8.random(in: 0...255, using: &generator)
                }
                do { _ = try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: 4_000_000) } catch { failures += 1 }
            }
        }
        #expect(failures > 0, "some damage is refused")
    }

    /// cjxl writes them (lossless, lossy, grey); Magpie reads each as djxl, libjxl's own tool, does.
    @Test func jpegXLDecodesAsLibjxlsOwnToolReadsIt() throws {
        let made = try Self.make()
        defer { try? FileManager.default.removeItem(at: made.folder) }
        let source = made.folder.appendingPathComponent(made.files["bmp-32bit"]!.name)
        let png = made.folder.appendingPathComponent("source.png")
        _ = try PythonScript.run(Self.script, ["png", source.path, png.path])
        for (name, arguments) in [("lossless", ["-d", "0"]), ("lossy", ["-d", "1.5"]), ("grey", ["-d", "1"])] {
            let input = name == "grey" ? made.folder.appendingPathComponent("grey.png") : png
            if name == "grey" { _ = try PythonScript.run(Self.script, ["grey", png.path, input.path]) }
            let jxl = made.folder.appendingPathComponent("\(name).jxl"), reference = made.folder.appendingPathComponent("\(name)-djxl.png")
            _ = try ChildProcess.run("cjxl", [input.path, jxl.path, "--quiet"] + arguments)
            _ = try ChildProcess.run("djxl", [jxl.path, reference.path, "--quiet"])
            let bytes = [UInt8](try Data(contentsOf: jxl))
            #expect(ImageFormat(sniffing: bytes) == .jxl)
            let decoded = try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: 1_000_000)
            let read = try JSONSerialization.jsonObject(with: PythonScript.run(Self.script, ["read", reference.path])) as? [String: Any] ?? [:]
            #expect(decoded.sourceFormat == .jxl && decoded.width == 97 && decoded.height == 61, "\(name)")
            #expect(decoded.pixels.map { String(format: "%02x", $0) }.joined() == read["rgba"] as? String, "\(name)")
            // Cut short or damaged, it is an error, never a crash.
            #expect(throws: MagpieError.self) { try VipsDecoder().decode(Array(bytes.prefix(bytes.count / 2)), thumbnail: nil, maximumPixels: 1_000_000) }
        }
    }

    @Test(arguments: [ImageFormat.bmp, .ico, .heif, .jxl])
    func whatMagpieWritesPillowOrLibheifReadsBack(format: ImageFormat) throws {
        try #require(format.isEncoderAvailable)
        for opaque in [true, false] {
            var pixels: [UInt8] = []
            for row in 0..<40 {
                for column in 0..<60 { pixels += [UInt8(column * 4), UInt8(row * 6), 90, opaque || column < 30 ? 255 : 128] }
            }
            let image = DecodedImage(width: 60, height: 40, pixels: pixels)
            let bytes = try ImageEncoder(quality: 90).encode(image, as: format)
            #expect(ImageFormat(sniffing: bytes) == format)
            if format == .heif || format == .jxl {
                // Lossy: read back by libheif or libjxl, close to what was written, alpha kept.
                let decoded = try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: 10_000)
                #expect(decoded.width == 60 && decoded.height == 40)
                let differences = zip(decoded.pixels, pixels).map { abs(Int($0) - Int($1)) }
                let mean = Double(differences.reduce(0, +)) / Double(differences.count)
                // At quality 90: off by a level or two on average, more only at the sharp alpha edge.
                #expect(mean <= 2 && (differences.max() ?? 255) <= 48, "mean difference \(mean), largest \(differences.max() ?? 255)")
                continue
            }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-written-\(UUID().uuidString).\(format.fileExtension)")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(bytes).write(to: file)
            let read = try JSONSerialization.jsonObject(with: PythonScript.run(Self.script, ["read", file.path])) as? [String: Any] ?? [:]
            #expect(read["width"] as? Int == 60 && read["height"] as? Int == 40)
            if format == .bmp { #expect(read["mode"] as? String == (opaque ? "RGB" : "RGBA")) }
            #expect(read["rgba"] as? String == pixels.map { String(format: "%02x", $0) }.joined(), "\(format) opaque \(opaque)")
        }
    }

    @Test func anIconIsScaledToTheSizeAnEntryCanDeclare() throws {
        let image = DecodedImage(width: 600, height: 300, pixels: [UInt8](repeating: 180, count: 600 * 300 * 4))
        let bytes = try ImageEncoder().encode(image, as: .ico)
        let decoded = try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: 1_000_000)
        #expect(decoded.width == 256 && decoded.height == 128)
        #expect(bytes[6] == 0 && bytes[7] == 128, "a side of 256 is written as 0")
    }

    @Test func anSVGIsRenderedAtItsSizeOrAThumbnails() throws {
        let document = ##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#0080ff"/><circle cx="100" cy="50" r="40" fill="#ff0000"/></svg>"##
        let bytes = Array(document.utf8)
        #expect(ImageFormat(sniffing: bytes) == .svg)
        let whole = try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: 1_000_000)
        #expect(whole.sourceFormat == .svg && whole.width == 200 && whole.height == 100)
        #expect(Array(whole.pixels[0..<4]) == [0, 128, 255, 255])
        #expect(Array(whole.pixels[(50 * 200 + 100) * 4..<(50 * 200 + 100) * 4 + 4]) == [255, 0, 0, 255])
        // A thumbnail is drawn at the box's size (libvips renders the vector at that scale); as
        // for any source, a thumbnail does not enlarge.
        let small = try VipsDecoder().decode(bytes, thumbnail: ImageRequest.Thumbnail(width: 50, height: 50), maximumPixels: 1_000_000)
        #expect(small.width == 50 && small.height == 25)
        #expect(Array(small.pixels[(12 * 50 + 25) * 4..<(12 * 50 + 25) * 4 + 4]) == [255, 0, 0, 255])
        let large = try VipsDecoder().decode(bytes, thumbnail: ImageRequest.Thumbnail(width: 800, height: 800), maximumPixels: 1_000_000)
        #expect(large.width == 200 && large.height == 100)
    }

    /// A density (``ImageRequest/vectorDPI``) sizes an SVG written in physical units, as
    /// thumbor's cairosvg does (an inch is that many pixels), and leaves one written in pixels
    /// as it is; the memory cache keeps the two densities apart, and a density that would draw
    /// more than the pixel limit is refused from the header.
    @Test func aDensitySizesPhysicalUnitsOnly() async throws {
        // Debian 12's libvips 8.14 scales the whole drawing by the density, pixels too, and the
        // scale that undoes that for pixel sizes undoes it for physical units as well: there the
        // density has no effect. 8.18, which Magpie installs, draws as below.
        guard Libvips.version.compare("8.18", options: .numeric) != .orderedAscending else {
            let inches = Array(##"<svg xmlns="http://www.w3.org/2000/svg" width="2in" height="1in"><rect width="10" height="10"/></svg>"##.utf8)
            var dense = DecodingOptions(maximumPixels: 10_000_000)
            dense.vectorDPI = 150
            #expect(try VipsDecoder().decode(inches, options: dense).width == 144, "libvips \(Libvips.version): 72 dots per inch whatever the density")
            return
        }
        let inches = Array(##"<svg xmlns="http://www.w3.org/2000/svg" width="2in" height="1in" viewBox="0 0 20 10"><rect width="20" height="10" fill="#ff0000"/></svg>"##.utf8)
        let pixels = Array(##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#0000ff"/></svg>"##.utf8)
        var dense = DecodingOptions(maximumPixels: 10_000_000)
        dense.vectorDPI = 150
        let drawn = try VipsDecoder().decode(inches, options: dense)
        #expect(drawn.width == 300 && drawn.height == 150)
        #expect(Array(drawn.pixels[0..<4]) == [255, 0, 0, 255])
        #expect(try VipsDecoder().decode(inches, options: DecodingOptions()).width == 144, "libvips' 72 without one")
        let unchanged = try VipsDecoder().decode(pixels, options: dense)
        #expect(unchanged.width == 200 && unchanged.height == 100)
        dense.thumbnail = ImageRequest.Thumbnail(width: 100, height: 100)
        let thumbnail = try VipsDecoder().decode(inches, options: dense)
        #expect(thumbnail.width == 100 && thumbnail.height == 50)
        var huge = DecodingOptions(maximumPixels: 10_000_000)
        huge.vectorDPI = 2_400
        #expect(throws: MagpieError.imageTooLarge(width: 4800, height: 2400, limit: 10_000_000)) { try VipsDecoder().decode(inches, options: huge) }
        huge.vectorDPI = -5
        #expect(try VipsDecoder().decode(inches, options: huge).width == 144, "not a density: libvips' own")

        try await withTestFixture { fixture in
            fixture.server.serve("/logo.svg", ServedRoute(body: inches, contentType: "image/svg+xml"))
            var request = ImageRequest(url: fixture.server.url("/logo.svg"))
            request.vectorDPI = 300
            let sharp = try await fixture.pipeline.image(for: request)
            request.vectorDPI = 96
            let plain = try await fixture.pipeline.image(for: request)
            #expect(sharp.image.width == 600 && plain.image.width == 192)
        }
    }

    /// An SVG is a program the origin sends: it is drawn without reaching anything outside it.
    @Test func hostileSVGsAreRefusedOrDrawnWithoutReachingOut() async throws {
        let origin = try await ImageServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-svg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let red = try ImageEncoder().encode(DecodedImage(width: 8, height: 8, pixels: [UInt8](repeating: 255, count: 8 * 8 * 4).enumerated().map { $0.offset % 4 == 1 || $0.offset % 4 == 2 ? 0 : $0.element }), as: .png)
        try Data(red).write(to: folder.appendingPathComponent("secret.png"))
        origin.serve("/secret.png", .image(red))
        let reaching = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="90" height="30">\
            <rect width="90" height="30" fill="#00ff00"/>\
            <image x="0" width="30" height="30" href="\(origin.url("/secret.png").absoluteString)"/>\
            <image x="30" width="30" height="30" xlink:href="file://\(folder.path)/secret.png"/>\
            <image x="60" width="30" height="30" href="secret.png"/>\
            <style>@import url(\(origin.url("/style.css").absoluteString));</style><script>document.write("x")</script></svg>
            """
        let drawn = try VipsDecoder().decode(Array(reaching.utf8), thumbnail: nil, maximumPixels: 1_000_000)
        for column in [15, 45, 75] {
            #expect(Array(drawn.pixels[(15 * 90 + column) * 4..<(15 * 90 + column) * 4 + 4]) == [0, 255, 0, 255], "column \(column) shows only the document")
        }
        #expect(origin.totalRequests == 0, "nothing was fetched")
        await origin.shutdown()

        var laughs = #"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a0 "ha">"#
        for level in 1...12 { laughs += "<!ENTITY a\(level) \"" + String(repeating: "&a\(level - 1);", count: 10) + "\">" }
        laughs += #"]><svg xmlns="http://www.w3.org/2000/svg" width="50" height="50"><text y="20">&a12;</text></svg>"#
        #expect(ImageFormat(sniffing: Array(laughs.utf8)) == .svg, "a document type with entities is skipped to its end")
        #expect(throws: MagpieError.self) { try VipsDecoder().decode(Array(laughs.utf8), thumbnail: nil, maximumPixels: 1_000_000) }

        let canvas = #"<svg xmlns="http://www.w3.org/2000/svg" width="1000000" height="1000000"><rect width="1000000" height="1000000"/></svg>"#
        #expect {
            try VipsDecoder().decode(Array(canvas.utf8), thumbnail: nil, maximumPixels: 100_000_000)
        } throws: { error in
            if case .imageTooLarge = error as? MagpieError { return true }
            return false
        }
    }

    static func little32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    static func bitmapHeader(width: Int, height: Int, bits: Int) -> [UInt8] {
        Array("BM".utf8) + little32(0) + little32(0) + little32(54) + little32(40) + little32(width) + little32(height) + [1, 0, UInt8(bits), 0]
            + [UInt8](repeating: 0, count: 24)
    }
}
