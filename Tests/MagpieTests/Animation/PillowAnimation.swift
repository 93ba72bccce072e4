import Foundation
import MagpieTesting

/// Runs Tests/Reference/pillow_animation.py: frame counts, durations and loop counts as Pillow
/// reads them, to check Magpie's against.
struct PillowAnimation: Decodable {
    let path: String
    let format: String
    let frames: Int
    let durations: [Int]
    let size: [Int]
    /// Times the animation plays; 0 is forever.
    let plays: Int

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Reference/pillow_animation.py")

    static func read(_ files: [URL]) throws -> [PillowAnimation] {
        let output = try PythonScript.run(script, files.map(\.path))
        return try String(decoding: output, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(PillowAnimation.self, from: Data($0.utf8))
        }
    }
}

extension PillowAnimation {
    /// How many frames of a truncated file Pillow decodes before the data runs out.
    static func wholeFrames(_ file: URL) throws -> Int {
        let output = try PythonScript.run(script, ["--whole-frames", file.path])
        return Int(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
