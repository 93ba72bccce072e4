import Foundation
import Magpie
import MagpieTesting

/// The demo's images, made once and kept: textures of many sizes and formats.
enum DemoGallery {
    struct Item {
        let name: String
        let width: Int
        let height: Int
        let format: EncodedFormat
        let progressive: Bool
    }

    /// About 150 images from 160 px thumbnails to 12 MP photos, in JPEG (baseline and
    /// progressive), PNG and WebP.
    static let items: [Item] = {
        let sizes: [(Int, Int)] = [(160, 120), (320, 240), (640, 480), (800, 600), (1024, 768), (1280, 720), (1600, 1200), (2048, 1365)]
        var items: [Item] = []
        for index in 0..<144 {
            let (width, height) = sizes[index % sizes.count]
            let format: EncodedFormat = [.jpeg, .jpeg, .png, .webp][index % 4]
            let progressive = format == .jpeg && index % 8 < 4
            items.append(Item(name: String(format: "photo-%03d", index), width: width, height: height, format: format, progressive: progressive))
        }
        for index in 0..<4 {
            items.append(Item(name: "camera-\(index)", width: 4000, height: 3000, format: .jpeg, progressive: index.isMultiple(of: 2)))
        }
        return items
    }()

    /// Writes missing images into `directory` and returns every file, printing progress.
    static func prepare(in directory: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var files: [URL] = []
        var made = 0
        for (index, item) in items.enumerated() {
            let file = directory.appendingPathComponent("\(item.name).\(item.format.fileExtension)")
            if !FileManager.default.fileExists(atPath: file.path) {
                let bytes = try TestImages.texture(
                    width: item.width, height: item.height, format: item.format, seed: UInt32(index + 1), progressive: item.progressive)
                try Data(bytes).write(to: file, options: .atomic)
                made += 1
                if made % 25 == 0 { print("  made \(made) images…") }
            }
            files.append(file)
        }
        if made > 0 { print("  made \(made) images in \(directory.path)") }
        return files
    }
}
