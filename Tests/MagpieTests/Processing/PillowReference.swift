import Foundation
import Magpie
import MagpieTesting

/// Runs Tests/Reference/pillow_reference.py: the same operation done by Pillow, an independent
/// implementation, to compare Magpie's processors with.
enum PillowReference {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Reference/pillow_reference.py")

    static func run(_ operation: String, _ arguments: [String] = [], on image: DecodedImage) throws -> DecodedImage {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-reference-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.png")
        let output = folder.appendingPathComponent("out.png")
        try Data(ImageEncoder().encode(image, as: .png)).write(to: input)
        _ = try PythonScript.run(script, [input.path, output.path, operation] + arguments)
        return try VipsDecoder().decode(Array(try Data(contentsOf: output)), thumbnail: nil, maximumPixels: .max)
    }
}

/// How far apart two images of the same size are, in 8-bit levels. Colour is compared
/// premultiplied, because the colour of a fully transparent pixel is not part of the image.
struct ImageDifference: CustomStringConvertible {
    let meanColour: Double
    let meanAlpha: Double
    let maximum: Int

    init(_ left: DecodedImage, _ right: DecodedImage) {
        precondition(left.width == right.width && left.height == right.height, "sizes differ")
        self.init(rgba: left.pixels, right.pixels)
    }

    /// Two RGBA buffers of the same size.
    init(rgba left: [UInt8], _ right: [UInt8]) {
        precondition(left.count == right.count && left.count % 4 == 0, "sizes differ")
        var colourTotal = 0
        var alphaTotal = 0
        var maximum = 0
        for offset in stride(from: 0, to: left.count, by: 4) {
            let leftAlpha = Int(left[offset + 3])
            let rightAlpha = Int(right[offset + 3])
            for channel in 0..<3 {
                let difference = abs(Int(left[offset + channel]) * leftAlpha / 255 - Int(right[offset + channel]) * rightAlpha / 255)
                colourTotal += difference
                maximum = max(maximum, difference)
            }
            alphaTotal += abs(leftAlpha - rightAlpha)
            maximum = max(maximum, abs(leftAlpha - rightAlpha))
        }
        let count = Double(max(1, left.count / 4))
        meanColour = Double(colourTotal) / (count * 3)
        meanAlpha = Double(alphaTotal) / count
        self.maximum = maximum
    }

    var description: String {
        String(format: "mean colour %.3f, mean alpha %.3f, max %d", meanColour, meanAlpha, maximum)
    }
}
