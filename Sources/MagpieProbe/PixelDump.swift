import Foundation
import Magpie
import MagpieTesting

/// Decodes files with the pipeline's decoder (full size, first frame) and writes each one's
/// RGBA pixels to `<directory>/<index>.rgba`, printing a `PixelDumpReport` line per file: the same
/// files decoded by two builds of Magpie, each on a different libvips, can then be compared
/// pixel by pixel.
enum PixelDump {
    static func run(directory: URL, files: [String], maximumPixels: Int) {
        let decoder = VipsDecoder()
        let encoder = JSONEncoder()
        for (index, file) in files.enumerated() {
            let bytes = Array((try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data())
            var report = PixelDumpReport(file: file, libvips: Libvips.version)
            do {
                let image = try decoder.decode(bytes, thumbnail: nil, maximumPixels: maximumPixels)
                let pixels = directory.appendingPathComponent("\(index).rgba")
                try Data(image.pixels).write(to: pixels)
                report.width = image.width
                report.height = image.height
                report.pixels = pixels.path
            } catch {
                report.error = "\(error)"
            }
            let line = (try? encoder.encode(report)) ?? Data("{}".utf8)
            FileHandle.standardOutput.write(line + Data("\n".utf8))
        }
    }
}
