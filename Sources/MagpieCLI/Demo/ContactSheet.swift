import Foundation
import Magpie

/// Writes the thumbnails as PNG files (animations as animated WebP, so the page plays them)
/// and an `index.html` that shows them with the run table.
enum ContactSheet {
    static func write(_ images: [(name: String, image: DecodedImage)], table: [DemoRun], to directory: URL) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = ImageEncoder()
        var figures: [String] = []
        for (name, image) in images {
            let format: ImageFormat = image.isAnimated ? .webp : .png
            let file = "\(name).\(format.fileExtension)"
            try Data(try encoder.encode(image, as: format)).write(to: directory.appendingPathComponent(file), options: .atomic)
            let frames = image.isAnimated ? " · \(image.frameCount) frames" : ""
            figures.append(
                "<figure><img src=\"\(file)\" width=\"\(image.width)\" height=\"\(image.height)\" alt=\"\(name)\" loading=\"lazy\">"
                    + "<figcaption>\(name) · \(image.sourceWidth)×\(image.sourceHeight) \(image.sourceFormat.rawValue)\(frames)</figcaption></figure>")
        }
        let rows = table.map { run in "<tr>" + run.cells.map { "<td>\(escaped($0))</td>" }.joined() + "</tr>" }
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Magpie demo</title>
            <style>body{font:14px system-ui,sans-serif;margin:2em;background:#fafafa;color:#222}
            main{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-end}
            figure{margin:0;background:#fff;padding:6px;box-shadow:0 1px 3px #0002}figcaption{color:#555;font-size:12px}
            table{border-collapse:collapse;margin:1em 0 2em}td,th{padding:4px 10px;border-bottom:1px solid #ddd;text-align:right}
            td:first-child,th:first-child{text-align:left}</style>
            </head><body><h1>Magpie demo: \(images.count) thumbnails</h1>
            <table><tr>\(DemoRun.headings.map { "<th>\($0)</th>" }.joined())</tr>
            \(rows.joined(separator: "\n"))
            </table><main>
            \(figures.joined(separator: "\n"))
            </main></body></html>
            """
        let index = directory.appendingPathComponent("index.html")
        try html.write(to: index, atomically: true, encoding: .utf8)
        return index
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
