import Foundation
import Magpie
import MagpieTesting

/// The side-by-side: a 100-frame 480×270 GIF resized to a 128 px box and written as
/// animated WebP (quality 80, Pillow's default), by Magpie and by Pillow, each in a fresh
/// process so peak memory is its own.
func measureAnimationConversion(into report: inout Report, workspace: URL) throws {
    let gif = workspace.appendingPathComponent("clip-100x480x270.gif")
    try Data(try ImageEncoder().encode(TestImages.panningClip(width: 480, height: 270, frames: 100), as: .gif)).write(to: gif)
    let runs = 5
    let magpie = try runChild(["animation-convert", gif.path, workspace.appendingPathComponent("magpie.webp").path, "\(runs)"])
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pillow_animation.py")
    let output = try PythonScript.run(script, [gif.path, workspace.appendingPathComponent("pillow.webp").path, "\(runs)"])
    guard let pillow = try JSONSerialization.jsonObject(with: output) as? [String: Any],
        let theirTime = pillow["milliseconds"] as? Double, let theirPeak = pillow["peak_kb"] as? Double
    else { throw BenchmarkError.childFailed("pillow_animation.py: \(String(decoding: output, as: UTF8.self))") }
    let version = pillow["version"] as? String ?? "?"
    let ratio = magpie.milliseconds / theirTime
    report.add(
        "100-frame 480×270 GIF → 128 px animated WebP, median of \(runs): Magpie / Pillow \(version)",
        "\(format(magpie.milliseconds)) / \(format(theirTime)) ms = \(format(ratio, 2))", target: "≤ 0.5", met: ratio <= 0.5)
    report.add(
        "  peak RSS of that process: Magpie / Pillow", "\(format(magpie.peakKilobytes / 1024)) / \(format(theirPeak / 1024)) MB",
        target: "lower", met: magpie.peakKilobytes < theirPeak)
}

private struct ChildResult {
    let milliseconds: Double
    let peakKilobytes: Double
}

private func runChild(_ arguments: [String]) throws -> ChildResult {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = arguments
    let output = Pipe()
    child.standardOutput = output
    try child.run()
    child.waitUntilExit()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let fields = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    guard child.terminationStatus == 0, fields.count == 2 else { throw BenchmarkError.childFailed(text) }
    return ChildResult(milliseconds: fields[0], peakKilobytes: fields[1])
}

/// Runs in the child: what a Magpie user does (decode every frame at thumbnail size and write
/// animated WebP, in one call), `runs` times; prints the median milliseconds and VmHWM in kB.
func convertAnimation(input: String, output: String, runs: Int) throws -> String {
    let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: input)))
    let options = DecodingOptions(thumbnail: .init(width: 128, height: 128), decodesAllFrames: true)
    let milliseconds = try medianMilliseconds(of: runs) {
        // One call: the frames are encoded while later ones decode (issue 38).
        let webp = try ImageEncoder(quality: 80).encode(decoding: bytes, options: options, as: .webp)
        try Data(webp).write(to: URL(fileURLWithPath: output))
    }
    if ProcessInfo.processInfo.environment["MAGPIE_BENCH_SPLIT"] != nil {
        let image = try VipsDecoder().decode(bytes, options: options)
        let decode = try medianMilliseconds(of: runs) { _ = try VipsDecoder().decode(bytes, options: options) }
        let encode = try medianMilliseconds(of: runs) { _ = try ImageEncoder(quality: 80).encode(image, as: .webp) }
        let apart = try medianMilliseconds(of: runs) {
            _ = try ImageEncoder(quality: 80).encode(VipsDecoder().decode(bytes, options: options), as: .webp)
        }
        FileHandle.standardError.write(Data("decode \(decode) ms, encode \(encode) ms, one after the other \(apart) ms\n".utf8))
    }
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst().first ?? "0"
    return "\(milliseconds) \(peak)"
}
