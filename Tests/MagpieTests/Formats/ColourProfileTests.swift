import Foundation
import Magpie
import MagpieTesting
import Testing

/// Embedded colour profiles: Magpie's pixels are sRGB, so a source in another space (a phone's
/// Display P3, Adobe RGB, a grey with its own tone curve) is converted on decode, as Pillow's
/// LittleCMS converts it (Tests/Reference/icc_profiles.py writes the sources, their profiles and
/// the reference), on the whole-image path and on the thumbnail paths.
@Suite("Colour profiles")
struct ColourProfileTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Reference/icc_profiles.py")

    static func made() throws -> (folder: URL, read: (String) throws -> [UInt8]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-icc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try PythonScript.run(script, [folder.path])
        return (folder, { Array(try Data(contentsOf: folder.appendingPathComponent($0))) })
    }

    @Test(arguments: ["grey.jpg", "wide.jpg", "wide-alpha.png"])
    func sourcesInOtherSpacesAreConvertedToSRGB(_ name: String) throws {
        let (folder, read) = try Self.made()
        defer { try? FileManager.default.removeItem(at: folder) }
        let decoded = try VipsDecoder().decode(try read(name), thumbnail: nil, maximumPixels: .max)
        let reference = try VipsDecoder().decode(try read(name.split(separator: ".")[0] + ".ref.png"), thumbnail: nil, maximumPixels: .max)
        let difference = ImageDifference(decoded, reference)
        #expect(difference.maximum <= 2, "\(name): \(difference)")
        // The profile matters here: the same numbers read as sRGB are far from the reference.
        let raw = try VipsDecoder().decode(try read(name.split(separator: ".")[0] + ".raw.png"), thumbnail: nil, maximumPixels: .max)
        #expect(ImageDifference(raw, reference).maximum > 10)
    }

    /// A thumbnail is converted too, whichever path makes it (JPEG shrink-on-load, libvips'
    /// thumbnail): the same colours as the whole image scaled down.
    @Test(arguments: ["wide.jpg", "wide-alpha.png", "grey.jpg"])
    func thumbnailsAreConvertedToo(_ name: String) throws {
        let (folder, read) = try Self.made()
        defer { try? FileManager.default.removeItem(at: folder) }
        let thumbnail = try VipsDecoder().decode(try read(name), thumbnail: .init(width: 16, height: 16), maximumPixels: .max)
        let reference = try VipsDecoder().decode(try read(name.split(separator: ".")[0] + ".ref.png"), thumbnail: .init(width: 16, height: 16), maximumPixels: .max)
        // Within a level and a half on average: where the wide red is out of sRGB's gamut, a
        // pixel scaled before its conversion is clipped otherwise than one scaled after (up to
        // 15 levels, at a corner). Unconverted, the same thumbnail is several levels off everywhere.
        let difference = ImageDifference(thumbnail, reference)
        #expect(difference.meanColour <= 1.5, "\(name): \(difference)")
        let raw = try VipsDecoder().decode(try read(name.split(separator: ".")[0] + ".raw.png"), thumbnail: .init(width: 16, height: 16), maximumPixels: .max)
        #expect(ImageDifference(raw, reference).meanColour > 3 * max(difference.meanColour, 1))
    }
}
