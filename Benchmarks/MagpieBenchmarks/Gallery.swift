import Foundation
import Magpie
import MagpieTesting

/// The benchmark's images: JPEGs from 0.3 to 12 megapixels with photo-like texture.
enum Gallery {
    /// Sizes cycle through this list: mostly web-sized images, a few camera-sized ones.
    static let sizes: [(Int, Int)] = [
        (640, 480), (800, 600), (1024, 768), (1280, 960), (1600, 1200), (640, 427), (1920, 1080), (2048, 1536),
        (800, 533), (4000, 3000),
    ]

    static func make(count: Int, in directory: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var files: [URL] = []
        var encoded: [Int: [UInt8]] = [:]
        for index in 0..<count {
            let sizeIndex = index % sizes.count
            // Encoding a texture is the slow part; images of one size share a texture but
            // each is a distinct URL and file, as the pipeline sees them.
            if encoded[sizeIndex] == nil {
                let (width, height) = sizes[sizeIndex]
                encoded[sizeIndex] = try TestImages.texture(
                    width: width, height: height, format: .jpeg, seed: UInt32(sizeIndex + 1), progressive: sizeIndex % 3 == 0)
            }
            let file = directory.appendingPathComponent(String(format: "image-%03d.jpg", index))
            try Data(encoded[sizeIndex]!).write(to: file)
            files.append(file)
        }
        return files
    }

    static func twelveMegapixelJPEG(in directory: URL, progressive: Bool = false) throws -> URL {
        let file = directory.appendingPathComponent(progressive ? "12mp-progressive.jpg" : "12mp.jpg")
        try Data(TestImages.texture(width: 4000, height: 3000, format: .jpeg, seed: 99, progressive: progressive)).write(to: file)
        return file
    }
}
