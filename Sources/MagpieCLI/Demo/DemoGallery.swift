import Dispatch
import Foundation
import Magpie
import MagpieOrigin
import NIOConcurrencyHelpers

/// The demo's images, made once with libvips and kept: labelled textures from thumbnails to
/// 12-megapixel photos in every format the pipeline decodes.
enum DemoGallery {
    struct Item: Sendable {
        let name: String
        let width: Int
        let height: Int
        let format: ImageFormat
        let progressive: Bool
        /// Above 1: an animation of this many frames.
        var frames = 1

        var fileName: String { "\(name).\(format.fileExtension)" }

        var label: String {
            let kind = progressive ? "progressive JPEG" : format == .jpeg ? "JPEG" : format.rawValue.uppercased()
            let animated = frames > 1 ? " · \(frames) frames" : ""
            return "\(name) · \(width)×\(height) · \(kind)\(animated)"
        }
    }

    /// Bumped when the gallery's recipe changes, so an old gallery on disk is not reused.
    static let version = 4

    /// `count` images (240 by default): sizes cycle from 96 px avatars to 2048 px photos, formats
    /// cycle through baseline and progressive JPEG, PNG, WebP and GIF (GIF only up to 800 px, as
    /// real GIFs are), every 60th image is a 4000×3000 camera photo, and every 24th is an
    /// animation (a 480×270 clip of 36 frames, GIF or animated WebP in turn), as feeds have.
    static func items(count: Int = 240) -> [Item] {
        let sizes = [(96, 96), (150, 150), (320, 240), (480, 640), (640, 480), (800, 600), (1024, 768), (1280, 720), (1600, 1200), (2048, 1365)]
        let formats: [(ImageFormat, Bool)] = [(.jpeg, false), (.jpeg, true), (.png, false), (.webp, false), (.gif, false)]
        return (0..<count).map { index in
            let name = String(format: "image-%03d", index)
            if index % 24 == 5 {
                return Item(name: name, width: 480, height: 270, format: index % 48 == 5 ? .gif : .webp, progressive: false, frames: 36)
            }
            if index % 60 == 59 {
                return Item(name: name, width: 4000, height: 3000, format: .jpeg, progressive: index % 120 == 59)
            }
            let (width, height) = sizes[index % sizes.count]
            var (format, progressive) = formats[index % formats.count]
            if format == .gif, width > 800 { format = .webp }
            return Item(name: name, width: width, height: height, format: format, progressive: progressive)
        }
    }

    /// Writes the missing images of `items` into `directory` (on all cores) and returns every file.
    static func prepare(_ items: [Item], in directory: URL, console: Console) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let missing = items.enumerated().filter { !FileManager.default.fileExists(atPath: directory.appendingPathComponent($0.element.fileName).path) }
        if !missing.isEmpty {
            console.output("Making \(missing.count) gallery images in \(directory.path) (once)…")
            let progress = LiveProgress(console: console, total: missing.count) { 0 }
            let failure = NIOLockedValueBox<(any Error)?>(nil)
            DispatchQueue.concurrentPerform(iterations: missing.count) { position in
                let (index, item) = missing[position]
                do {
                    let image = item.frames > 1
                        ? TestImages.panningClip(width: item.width, height: item.height, frames: item.frames, seed: UInt32(index + 1), label: item.label)
                        : TestImages.pixels(width: item.width, height: item.height, seed: UInt32(index + 1), label: item.label)
                    var encoder = ImageEncoder(quality: item.frames > 1 ? 80 : 85, progressive: item.progressive)
                    // GIF palettes at libimagequant's least effort: libvips' default made the
                    // five GIF clips and the GIF stills three quarters of the gallery's time
                    // (120 of 157 s of CPU), the longest part of a first run after the build.
                    encoder.gifEffort = 1
                    let bytes = try encoder.encode(image, as: item.format)
                    try Data(bytes).write(to: directory.appendingPathComponent(item.fileName), options: .atomic)
                } catch {
                    failure.withLockedValue { $0 = error }
                }
                progress.itemFinished()
            }
            progress.finish()
            if let error = failure.withLockedValue({ $0 }) { throw error }
        }
        return items.map { directory.appendingPathComponent($0.fileName) }
    }
}
