import Foundation
import Magpie

/// A 12 MP JPEG to a 256 px thumbnail: time, and peak memory in a fresh process.
func measureThumbnail(_ file: URL, progressive: Bool = false, into report: inout Report) throws {
    let bytes = try Array(Data(contentsOf: file))
    let decoder = VipsDecoder()
    let box = ImageRequest.Thumbnail(width: 256, height: 256)
    let result = try medianMilliseconds(of: 20) { _ = try decoder.decode(bytes, thumbnail: box, maximumPixels: 100_000_000) }
    let megabytes = format(Double(bytes.count) / 1_048_576)
    let kind = progressive ? "progressive JPEG" : "JPEG"
    report.add("12 MP \(kind) (\(megabytes) MB, noisy texture) → 256 px thumbnail, median of 20", "\(format(result)) ms", target: "< 25 ms", met: result < 25)
}

func measureThumbnailPeakInChild(_ file: URL, into report: inout Report) throws {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["thumbnail-peak", file.path]
    let output = Pipe()
    child.standardOutput = output
    try child.run()
    child.waitUntilExit()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
    guard child.terminationStatus == 0, let kilobytes = Double(text) else { throw BenchmarkError.childFailed(text) }
    let megabytes = kilobytes / 1024
    report.add("peak memory of that thumbnail above baseline", "\(format(megabytes)) MB", target: "< 10 MB", met: megabytes < 10)
}

/// Runs in the child: VmHWM after the thumbnail minus VmRSS before it, in kB, with the
/// high-water mark reset (`clear_refs` 5) once the decoder and the file are loaded.
func measureThumbnailPeak(path: String) throws -> Int {
    let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
    let decoder = VipsDecoder()
    // Start libvips and its loaders on a tiny image so their one-time cost is baseline.
    _ = try? decoder.decode(try ImageEncoder().encode(DecodedImage(width: 8, height: 8, pixels: [UInt8](repeating: 9, count: 256)), as: .jpeg),
        thumbnail: .init(width: 4, height: 4), maximumPixels: 100)
    try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let baseline = try statusField("VmRSS")
    let image = try decoder.decode(bytes, thumbnail: .init(width: 256, height: 256), maximumPixels: 100_000_000)
    let peak = try statusField("VmHWM")
    precondition(image.width == 256)
    return peak - baseline
}

private func statusField(_ name: String) throws -> Int {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }
    return 0
}
