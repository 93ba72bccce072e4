import Foundation
@testable import Magpie
import Testing

/// Inputs kept in `FuzzRegressions/<target>/`: crashes libFuzzer found (once fixed) and the
/// seeds scripts/fuzz starts from. Each goes through the same code as the fuzz target.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzRegressions")

    static func inputs(_ target: String) -> [String] {
        let directory = folder.appendingPathComponent(target)
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
            .map { directory.appendingPathComponent($0).path }
    }

    @Test func everyTargetHasInputs() {
        #expect(!Self.inputs("decoder").isEmpty)
        #expect(!Self.inputs("cache-entry").isEmpty)
    }

    @Test(arguments: inputs("decoder"))
    func decoderInputsFailCleanly(path: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        for thumbnail in [nil, ImageRequest.Thumbnail(width: 64, height: 64)] {
            // Every decoder regression so far is hostile; each must be refused, not decoded.
            #expect(throws: MagpieError.self) { try VipsDecoder().decode(bytes, thumbnail: thumbnail, maximumPixels: 4_000_000) }
        }
    }

    @Test(arguments: inputs("cache-entry"))
    func cacheEntryInputsParseOrFailCleanly(path: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let name = URL(fileURLWithPath: path).lastPathComponent
        let entry = try? DiskEntryFormat.decode(bytes, expectedKey: nil)
        // Seeds named valid-* are whole entries written by the cache; anything else must be refused.
        #expect((entry != nil) == name.hasPrefix("valid-"), "\(name)")
        if let entry { #expect(throws: DiskEntryFormat.ParseError.wrongKey) { try DiskEntryFormat.decode(bytes, expectedKey: entry.key + "x") } }
    }
}
