import Foundation
import Magpie
import MagpieTesting

/// The proxy's costliest options on a 12 MP photo, from JPEG bytes to a JPEG at quality 80,
/// against Pillow doing the same (Benchmarks/pillow_costly.py) in one run: trim of a white
/// border, a half-opaque 400x200 watermark in the south-east corner, max_bytes (600 kB from
/// quality 90, imgproxy's steps) and sharpen (sigma 1). The baseline row is the decode and
/// encode alone.
func measureCostlyOptions(into report: inout Report, workspace: URL) throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pillow_costly.py")
    let photo = try TestImages.texture(width: 4000, height: 3000, format: .jpeg, seed: 11)
    let decoded = try VipsDecoder().decode(photo, thumbnail: nil, maximumPixels: 100_000_000)
    let bordered = try ImageEncoder(quality: 95).encode(
        try ImageProcessors.Embed(width: 4200, height: 3200, x: 100, y: 100, background: .white).process(decoded), as: .jpeg)
    var markPixels: [UInt8] = []
    for y in 0..<200 {
        for x in 0..<400 { markPixels += [UInt8(x % 256), UInt8(y), 200, x % 40 < 20 ? 255 : 0] }
    }
    let mark = DecodedImage(width: 400, height: 200, pixels: markPixels)
    let files = (photo: workspace.appendingPathComponent("costly-photo.jpg"), bordered: workspace.appendingPathComponent("costly-bordered.jpg"),
                 mark: workspace.appendingPathComponent("costly-mark.png"))
    try Data(photo).write(to: files.photo)
    try Data(bordered).write(to: files.bordered)
    try Data(ImageEncoder().encode(mark, as: .png)).write(to: files.mark)
    let runs = 7, maximumBytes = 600_000
    let output = try PythonScript.run(script, [files.photo.path, files.bordered.path, files.mark.path, "\(runs)", "\(maximumBytes)"])
    guard let pillow = try JSONSerialization.jsonObject(with: output) as? [String: Any] else {
        throw BenchmarkError.childFailed("pillow_costly.py: \(String(decoding: output, as: UTF8.self))")
    }
    let version = pillow["version"] as? String ?? "?"

    let jpeg = ImageEncoder(quality: 80)
    func decode(_ bytes: [UInt8]) throws -> DecodedImage { try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: 100_000_000) }
    let watermark = ImageProcessors.Watermark(
        mark: .init(identifier: "bench", image: mark), opacity: 0.5, position: .placed(.anchored(.southEast, x: 20, y: 20)))
    let operations: [(String, String, () throws -> Void)] = [
        ("baseline", "decode and encode alone", { _ = try jpeg.encode(try decode(photo), as: .jpeg) }),
        ("trim", "trim a white border (4200x3200)", { _ = try jpeg.encode(try ImageProcessors.Trim(threshold: 10).process(try decode(bordered)), as: .jpeg) }),
        ("watermark", "watermark 400x200 at half opacity", { _ = try jpeg.encode(try watermark.process(try decode(photo)), as: .jpeg) }),
        ("max_bytes", "max_bytes 600 kB from quality 90", {
            _ = try EncodingRequest(quality: 90, maximumBytes: maximumBytes).encode(try decode(photo), as: .jpeg)
        }),
        ("sharpen", "sharpen sigma 1", { _ = try jpeg.encode(try ImageProcessors.Sharpen(sigma: 1).process(try decode(photo)), as: .jpeg) }),
    ]
    for (key, name, body) in operations {
        let magpie = try medianMilliseconds(of: runs, body)
        let theirs = pillow[key] as? Double ?? .nan
        report.add("12 MP JPEG, \(name): Magpie / Pillow \(version)", "\(format(magpie)) / \(format(theirs)) ms = \(format(magpie / theirs, 2))")
    }
}

/// The filters of thumbor's benchmark chain on a 256 px result, each alone and chained, in
/// process: where a filtered thumbnail's time goes.
func measureSmallFilters(into report: inout Report) throws {
    let photo = try TestImages.texture(width: 256, height: 171, format: .jpeg, seed: 3)
    let image = try VipsDecoder().decode(photo, thumbnail: nil, maximumPixels: 100_000_000)
    let filters: [(String, any ImageProcessing)] = [
        ("grayscale", ImageProcessors.Grayscale()), ("blur sigma 2", ImageProcessors.GaussianBlur(sigma: 2)),
        ("sharpen sigma 1", ImageProcessors.Sharpen(sigma: 1)),
    ]
    let unsharp = ImageProcessors.UnsharpMask(sigma: 1, amount: 2)
    report.add("256x171, unsharp mask sigma 1 (thumbor's sharpen)", "\(format(try medianMilliseconds(of: 51) { _ = try unsharp.process(image) }, 2)) ms")
    for (name, filter) in filters {
        report.add("256x171, \(name)", "\(format(try medianMilliseconds(of: 51) { _ = try filter.process(image) }, 2)) ms")
    }
    let chain = try medianMilliseconds(of: 51) {
        var out = image
        for (_, filter) in filters { out = try filter.process(out) }
    }
    report.add("256x171, the three in a row", "\(format(chain, 2)) ms")
}
