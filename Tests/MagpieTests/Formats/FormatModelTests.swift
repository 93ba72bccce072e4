import Foundation
import Magpie
import MagpieTesting
import Testing

/// The one format model: what recognises a format's bytes, what the decoder reports and what
/// the encoder writes agree with each other and with the corpus's own labels.
@Suite("The format model")
struct FormatModelTests {
    /// The manifest's format names for files Magpie reads whole, by the model's case.
    static let manifestNames: [String: ImageFormat] = [
        "jpeg": .jpeg, "png": .png, "apng": .png, "gif": .gif, "webp": .webp, "avif": .avif, "avifs": .avif, "heif": .heif,
    ]

    @Test func sniffingAndDecodingAgreeWithTheCorpus() throws {
        var checked = 0
        for entry in Corpus.entries(expected: "valid") {
            guard let expected = Self.manifestNames[entry.format] else { continue }
            let bytes = try entry.bytes()
            #expect(ImageFormat(sniffing: bytes) == expected, "\(entry.path)")
            if let image = try? VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: 100_000_000) {
                #expect(image.sourceFormat == expected, "\(entry.path)")
                checked += 1
            }
        }
        #expect(checked > 150)
    }

    @Test(arguments: ImageFormat.encodable.filter(\.isEncoderAvailable))
    func whatTheEncoderWritesIsRecognisedAsItsFormat(format: ImageFormat) throws {
        var pixels: [UInt8] = []
        for row in 0..<24 {
            for column in 0..<32 { pixels += [UInt8(column * 8), UInt8(row * 10), 90, 255] }
        }
        let bytes = try ImageEncoder(quality: 80).encode(DecodedImage(width: 32, height: 24, pixels: pixels), as: format)
        #expect(ImageFormat(sniffing: bytes) == format)
        let decoded = try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: 10_000)
        #expect(decoded.sourceFormat == format && decoded.width == 32 && decoded.height == 24)
    }

    @Test func theEncoderRefusesFormatsItDoesNotWrite() {
        let pixel = DecodedImage(width: 1, height: 1, pixels: [0, 0, 0, 255])
        for format in ImageFormat.allCases where !format.isEncodable {
            #expect(throws: MagpieError.self) { try ImageEncoder().encode(pixel, as: format) }
        }
        #expect(ImageFormat.encodable == [.jpeg, .png, .webp, .avif, .gif, .heif, .tiff, .bmp, .ico, .jxl])
    }

    @Test func namesAndExtensionsLeadToTheirFormat() {
        for format in ImageFormat.allCases where format != .unknown {
            #expect(ImageFormat(name: format.rawValue) == format)
            for fileExtension in format.fileExtensions { #expect(ImageFormat(name: fileExtension.uppercased()) == format) }
            #expect(format.mediaType.hasPrefix("image/"))
        }
        #expect(ImageFormat(name: "jpg") == .jpeg && ImageFormat(name: "heic") == .heif)
        #expect(ImageFormat(name: "bmp") == .bmp && ImageFormat(name: "jp2") == nil && ImageFormat(name: "unknown") == nil && ImageFormat(name: "bin") == nil)
        #expect(!ImageFormat.jpeg.keepsAlpha && ImageFormat.png.keepsAlpha)
        #expect(ImageFormat.allCases.filter(\.isAnimatable) == [.webp, .gif])
    }

    /// A HEIF file's brands decide: AVIF or HEIC by any brand that names its coding, AVIF for the
    /// generic brands alone (as the decoder reads them).
    @Test(arguments: [
        (["mif1", "heic"], ImageFormat.heif), (["heic", "mif1"], .heif), (["mif1", "avif"], .avif), (["avis", "msf1"], .avif),
        (["mif1"], .avif), (["isom", "mp41"], .unknown),
    ])
    func heifBrandsDecideBetweenAVIFAndHEIC(brands: [String], expected: ImageFormat) {
        let box = 8 + 4 * (brands.count + 1)
        var bytes: [UInt8] = [0, 0, 0, UInt8(box)] + Array("ftyp".utf8) + Array(brands[0].utf8) + [0, 0, 0, 0]
        for brand in brands.dropFirst() { bytes += Array(brand.utf8) }
        #expect(ImageFormat(sniffing: bytes + [UInt8](repeating: 0, count: 16)) == expected)
    }
}
