import Foundation
import Magpie
import MagpieTesting

/// Each processor against Pillow doing the same to the same decoded pixels, side by side:
/// Lanczos resize to a 256 px box, Gaussian blur (sigma 4), a rounded-corner mask (radius 32).
func measureProcessors(into report: inout Report, workspace: URL) throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("pillow_processing.py")
    for (label, width, height) in [("1 MP", 1224, 816), ("12 MP", 4000, 3000)] {
        let jpeg = try TestImages.texture(width: width, height: height, format: .jpeg, seed: 7)
        let image = try VipsDecoder().decode(jpeg, thumbnail: nil, maximumPixels: 100_000_000)
        let png = workspace.appendingPathComponent("process-\(width).png")
        try Data(ImageEncoder().encode(image, as: .png)).write(to: png)
        let runs = width > 2000 ? 7 : 25
        let pillow = try runPillow(script: script, image: png, runs: runs)
        let processors: [(String, String, any ImageProcessing)] = [
            ("resize", "Lanczos resize to a 256 px box", ImageProcessors.Resize(width: 256, height: 256)),
            ("blur", "Gaussian blur, sigma 4", ImageProcessors.GaussianBlur(sigma: 4)),
            ("round", "rounded corners, radius 32", ImageProcessors.RoundedCorners(radius: 32)),
        ]
        for (key, name, processor) in processors {
            let magpie = try medianMilliseconds(of: runs) { _ = try processor.process(image) }
            let theirs = pillow[key] ?? .nan
            let ratio = magpie / theirs
            report.add(
                "\(label) \(name): Magpie / Pillow \(pillow.version)", "\(format(magpie)) / \(format(theirs)) ms = \(format(ratio, 2))",
                target: "≤ 0.5", met: ratio <= 0.5)
        }
    }
}

private struct PillowTimes {
    let times: [String: Double]
    let version: String
    subscript(key: String) -> Double? { times[key] }
}

private func runPillow(script: URL, image: URL, runs: Int) throws -> PillowTimes {
    let data = try PythonScript.run(script, [image.path, "\(runs)"])
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw BenchmarkError.childFailed("pillow_processing.py: \(String(decoding: data, as: UTF8.self))")
    }
    return PillowTimes(times: object.compactMapValues { $0 as? Double }, version: object["version"] as? String ?? "?")
}
