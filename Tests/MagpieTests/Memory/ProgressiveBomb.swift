import Foundation
import MagpieTesting

/// A small progressive 4:4:4 JPEG with many pixels (Tests/Reference/progressive_bomb.py):
/// 7000×7000 is 1.2 MB on disk and 294 MB of coefficients for a decoder to hold.
enum ProgressiveBomb {
    static func make(width: Int = 7000, height: Int = 7000) throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-bomb-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reference/progressive_bomb.py")
        _ = try PythonScript.run(script, [file.path, "\(width)", "\(height)"])
        return Array(try Data(contentsOf: file))
    }
}
