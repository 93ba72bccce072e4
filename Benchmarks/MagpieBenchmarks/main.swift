import Foundation
import Magpie
import MagpieTesting

// Release build: swift run -c release MagpieBenchmarks [--quick] [--only hit|proxyhit|bind|cold|thumbnail|png|process|animation|costly|network|memory]
// (`memory` runs the release `magpie` and `MagpieProbe`: `swift build -c release` first)
// One run prints every measurement BENCHMARKS.md records, side by side with its target;
// `--only` runs one group, for profiling it (for example under `perf record`).

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "animation-convert", arguments.count == 4, let runs = Int(Array(arguments)[3]) {
    // Child mode: one animation conversion, timed, with this process's peak memory.
    print(try convertAnimation(input: Array(arguments)[1], output: Array(arguments)[2], runs: runs))
    exit(0)
}
if arguments.first == "thumbnail-peak", let path = arguments.dropFirst().first {
    // Child mode: the peak resident memory of one 12 MP thumbnail, in a fresh process.
    print(try measureThumbnailPeak(path: path))
    exit(0)
}
if arguments.first == "hot-floor", let path = arguments.dropFirst().first {
    // Server mode: Hummingbird's minimal handler serving one file, the proxy's floor.
    let rest = Array(arguments.dropFirst(2))
    try await serveHotFloor(body: path, contentType: rest.first ?? "image/jpeg", headerFile: rest.dropFirst().first)
    exit(0)
}
func runBenchmarks(quick: Bool, only: String?) async throws -> Report {
    func wanted(_ group: String) -> Bool { only == nil || only == group }
    let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: workspace) }
    var report = Report()
    print("Measuring…")
    if wanted("hit") { try await measureHitCost(into: &report, workspace: workspace) }
    if wanted("proxyhit") { try await measureProxyHitCost(into: &report, workspace: workspace) }
    if wanted("bind") { try await measureBindMissCost(into: &report) }
    if wanted("cold") {
        let gallery = try Gallery.make(count: quick ? 40 : 200, in: workspace.appendingPathComponent("gallery"))
        try await measureColdLoad(gallery, into: &report, workspace: workspace)
    }
    if wanted("thumbnail") {
        let twelveMP = try Gallery.twelveMegapixelJPEG(in: workspace)
        try measureThumbnail(twelveMP, into: &report)
        try measureThumbnailPeakInChild(twelveMP, into: &report)
        try measureThumbnail(try Gallery.twelveMegapixelJPEG(in: workspace, progressive: true), progressive: true, into: &report)
    }
    if wanted("png") { try measurePNGDecode(into: &report) }
    if wanted("process") {
        try measureProcessors(into: &report, workspace: workspace)
        try await measureVariantLoad(
            try Gallery.make(count: quick ? 40 : 120, in: workspace.appendingPathComponent("variant-gallery")), into: &report, workspace: workspace)
    }
    if wanted("animation") { try measureAnimationConversion(into: &report, workspace: workspace) }
    if wanted("costly") {
        try measureSmallFilters(into: &report)
        try measureCostlyOptions(into: &report, workspace: workspace)
    }
    if wanted("network") { try await measureConnectionFailures(into: &report) }
    // Minutes, not seconds, and it loads the machine: only when asked for.
    if only == "memory" { try await measureSustainedMemory(into: &report, workspace: workspace) }
    return report
}

let groups = ["hit", "proxyhit", "bind", "cold", "thumbnail", "png", "process", "animation", "costly", "network", "memory"]
var only: String?
if let flag = arguments.firstIndex(of: "--only") {
    only = arguments[arguments.index(after: flag)...].first
    guard let only, groups.contains(only) else {
        print("--only takes one of: \(groups.joined(separator: ", "))")
        exit(2)
    }
}
try await runBenchmarks(quick: arguments.contains("--quick"), only: only).print()
