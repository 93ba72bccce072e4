public import Foundation

/// Photo-like JPEGs of 0.3 to 12 megapixels (a third progressive) made by the shared
/// `make-photos` tool, for sustained-load tests and benchmarks that must use real-size images.
public enum Photos {
    /// The photos could not be made: the tool, python3 or Pillow is missing, or the tool failed.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// A folder holding `count` photos, made on first use and reused afterwards (the tool is
    /// deterministic and skips files that exist). Needs python3 with Pillow.
    public static func folder(count: Int) throws -> URL {
        let tool = Corpus.directory.deletingLastPathComponent().appendingPathComponent("tools/make-photos")
        guard FileManager.default.fileExists(atPath: tool.path) else {
            throw Unavailable(description: "make-photos is missing: \(tool.path)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-photos-\(count)", isDirectory: true)
        do {
            _ = try PythonScript.run(tool, [folder.path, "\(count)"])
        } catch {
            throw Unavailable(description: "make-photos failed: \(error)")
        }
        return folder
    }
}
