import Foundation
import Magpie
import MagpieTesting

// Release build: swift run -c release MagpieBenchmarks [--quick]
// One run prints every measurement BENCHMARKS.md records, side by side with its target.

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "thumbnail-peak", let path = arguments.dropFirst().first {
    // Child mode: the peak resident memory of one 12 MP thumbnail, in a fresh process.
    print(try measureThumbnailPeak(path: path))
    exit(0)
}
func runBenchmarks(quick: Bool) async throws -> Report {
    let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: workspace) }
    var report = Report()
    print("Generating images…")
    let gallery = try Gallery.make(count: quick ? 40 : 200, in: workspace.appendingPathComponent("gallery"))
    let twelveMP = try Gallery.twelveMegapixelJPEG(in: workspace)
    print("Measuring…")
    try await measureHitCost(into: &report, workspace: workspace)
    try await measureBindMissCost(into: &report)
    try await measureColdLoad(gallery, into: &report, workspace: workspace)
    try measureThumbnail(twelveMP, into: &report)
    try measureThumbnailPeakInChild(twelveMP, into: &report)
    return report
}

try await runBenchmarks(quick: arguments.contains("--quick")).print()
