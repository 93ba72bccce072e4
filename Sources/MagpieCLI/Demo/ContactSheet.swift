import Foundation
import Magpie

/// Writes thumbnails as PNG files and an `index.html` that shows them all.
enum ContactSheet {
    static func write(_ images: [(name: String, image: DecodedImage)], to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = ImageEncoder()
        var cells: [String] = []
        for (name, image) in images {
            let file = "\(name).png"
            try Data(try encoder.encode(image, as: .png)).write(to: directory.appendingPathComponent(file))
            cells.append(
                "<figure><img src=\"\(file)\" width=\"\(image.width)\" height=\"\(image.height)\" alt=\"\(name)\">"
                    + "<figcaption>\(name) · \(image.sourceWidth)×\(image.sourceHeight) \(image.sourceFormat.rawValue)</figcaption></figure>")
        }
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Magpie demo</title>
            <style>body{font:14px system-ui;margin:2em;background:#fafafa}main{display:flex;flex-wrap:wrap;gap:12px}
            figure{margin:0;background:#fff;padding:6px;box-shadow:0 1px 3px #0002}figcaption{color:#555;font-size:12px}</style>
            </head><body><h1>Magpie demo: \(images.count) thumbnails</h1><main>
            \(cells.joined(separator: "\n"))
            </main></body></html>
            """
        try html.write(to: directory.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
    }
}
