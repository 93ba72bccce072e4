import Foundation
import MagpieTesting

/// Issue 10's memory rows, measured the way a user meets them: the release `magpie fetch` over
/// distinct URLs of real-size photos, beside Pillow doing the same downloads and decodes six at
/// a time, each in its own process under `/usr/bin/time`; and the RSS trend of a long soak.
func measureSustainedMemory(into report: inout Report, workspace: URL) async throws {
    let tools = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let magpie = tools.appendingPathComponent("magpie")
    let probe = tools.appendingPathComponent("MagpieProbe")
    for tool in [magpie, probe] where !FileManager.default.isExecutableFile(atPath: tool.path) {
        throw BenchmarkError.childFailed("\(tool.path) is missing: run `swift build -c release` first")
    }
    let photos = try Photos.folder(count: 60)
    let server = try await ImageServer.start()
    let paths = try server.serveDirectory(photos).filter { $0.hasSuffix(".jpg") }
    func urlList(_ count: Int, name: String) throws -> URL {
        let file = workspace.appendingPathComponent(name)
        let lines = (0..<count).map { server.url("\(paths[$0 % paths.count])?n=\($0)").absoluteString }
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        return file
    }
    let thumbnails = try urlList(1200, name: "thumbnails.txt")
    let fullSize = try urlList(600, name: "full.txt")
    let pillow = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Comparison/pillow_fetch.py")

    let magpieThumbs = try measured(magpie.path, ["fetch", "-i", thumbnails.path, "--no-cache", "--concurrency", "6", "--thumbnail", "256x256"], workspace)
    let pillowThumbs = try measured("/usr/bin/env", ["python3", pillow.path, thumbnails.path, "256"], workspace)
    let magpieFull = try measured(magpie.path, ["fetch", "-i", fullSize.path, "--no-cache", "--concurrency", "6"], workspace)
    let pillowFull = try measured("/usr/bin/env", ["python3", pillow.path, fullSize.path], workspace)
    await server.shutdown()

    report.add(
        "`magpie fetch --no-cache --concurrency 6 --thumbnail 256x256`, 1,200 distinct URLs of 60 photos (0.3–12 MP): peak RSS",
        "\(magpieThumbs.peakMB) MB in \(format(magpieThumbs.seconds)) s (Pillow, 6 threads: \(pillowThumbs.peakMB) MB in \(format(pillowThumbs.seconds)) s)",
        target: "< 250 MB", met: magpieThumbs.peakMB < 250)
    let fullTarget = 64 + 500
    report.add(
        "`magpie fetch --no-cache --concurrency 6`, 600 distinct full-size URLs: peak RSS (memory cache 64 MB)",
        "\(magpieFull.peakMB) MB in \(format(magpieFull.seconds)) s (Pillow, 6 threads: \(pillowFull.peakMB) MB in \(format(pillowFull.seconds)) s)",
        target: "< cache + 500 MB = \(fullTarget) MB", met: magpieFull.peakMB < fullTarget)

    let photos18 = try Photos.folder(count: 18)
    let full = try soakTrend(probe, photos18, loads: 4000, box: nil, cache: false, workspace: workspace)
    report.add(
        "RSS growth per 1,000 loads after 1,000, full size, no memory cache (`MagpieProbe soak`, 4,000 loads; medians of the first and last thirds)",
        "\(format(full.slope)) MB (RSS \(full.minimum)–\(full.maximum) MB, peak \(full.peak) MB)",
        target: "< 10 MB", met: full.slope < 10)
    let thumbs = try soakTrend(probe, photos18, loads: 20000, box: 256, cache: true, workspace: workspace)
    report.add(
        "same, 20,000 thumbnails with the default memory cache, RSS less the cache's contents, after the cache is full",
        "\(format(thumbs.slope)) MB (RSS \(thumbs.minimum)–\(thumbs.maximum) MB beside the cache, peak \(thumbs.peak) MB)",
        target: "< 10 MB", met: thumbs.slope < 10)
}

private struct Measured {
    var peakMB: Int
    var seconds: Double
}

/// Runs a command under `/usr/bin/time` and returns its peak resident memory and wall time.
private func measured(_ executable: String, _ arguments: [String], _ workspace: URL) throws -> Measured {
    let timing = workspace.appendingPathComponent("time-\(UUID().uuidString)")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
    process.arguments = ["-f", "%M %e", "-o", timing.path, executable] + arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw BenchmarkError.childFailed("\(executable) \(arguments.first ?? "") exited with \(process.terminationStatus)")
    }
    let fields = try String(contentsOf: timing, encoding: .utf8).split(whereSeparator: \.isWhitespace)
    guard fields.count >= 2, let kilobytes = Int(fields[fields.count - 2]), let seconds = Double(fields[fields.count - 1]) else {
        throw BenchmarkError.childFailed("cannot read /usr/bin/time's output")
    }
    return Measured(peakMB: kilobytes / 1024, seconds: seconds)
}

private struct Trend {
    var slope: Double
    var minimum: Int
    var maximum: Int
    var peak: Int
}

/// How fast RSS (less the memory cache's contents) grows, in MB per 1,000 loads, after warm-up: the first 1,000 loads, and until the memory cache is full (while
/// it fills, the allocator's heaps grow with it; that is the cache's cost, not a leak).
private func soakTrend(_ probe: URL, _ photos: URL, loads: Int, box: Int?, cache: Bool, workspace: URL) throws -> Trend {
    let output = workspace.appendingPathComponent("soak-\(UUID().uuidString).jsonl")
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    let process = Process()
    process.executableURL = probe
    process.arguments = ["soak", photos.path, "\(loads)", "6", box.map(String.init) ?? "full", cache ? "cache" : "no-cache", "250"]
    process.standardOutput = try FileHandle(forWritingTo: output)
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw BenchmarkError.childFailed("MagpieProbe soak exited with \(process.terminationStatus)") }
    let all = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        .map { try JSONDecoder().decode(SoakSample.self, from: Data($0.utf8)) }
    let fullCache = all.map(\.memoryCacheCost).max() ?? 0
    let filled = all.first { $0.memoryCacheCost >= fullCache * 98 / 100 }?.loads ?? 0
    let samples = all.filter { $0.loads >= max(1000, filled) }
    let values = samples.map { Double($0.resident - $0.memoryCacheCost) / 1_048_576 }
    // RSS swings by tens of megabytes with what is in flight at the moment of a sample, so the
    // trend compares the medians of the first and last thirds rather than fitting every point.
    let third = max(1, samples.count / 3)
    let early = median(Array(values.prefix(third)))
    let late = median(Array(values.suffix(third)))
    let span = (Double(samples[samples.count - 1 - third / 2].loads) - Double(samples[third / 2].loads)) / 1000
    let slope = span > 0 ? (late - early) / span : 0
    return Trend(
        slope: slope, minimum: Int(values.min() ?? 0), maximum: Int(values.max() ?? 0),
        peak: (samples.map(\.peak).max() ?? 0) >> 20)
}
