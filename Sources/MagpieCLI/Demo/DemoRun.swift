import Foundation
import Magpie

/// One pass over the demo gallery, and what it cost.
struct DemoRun {
    let label: String
    let duration: Duration
    let statistics: PipelineStatistics
    let images: [(name: String, image: DecodedImage)]

    /// Loads every URL through one new pipeline once per label, so the first pass sees the
    /// caches as the configuration left them and later passes see the pipeline's own memory cache.
    static func load(
        _ urls: [URL], box: ImageRequest.Thumbnail, labels: [String], configuration: ImagePipeline.Configuration, console: Console
    ) async throws -> [DemoRun] {
        try await withImagePipeline(configuration: configuration) { pipeline in
            var runs: [DemoRun] = []
            for label in labels {
                let before = pipeline.statistics
                let start = ContinuousClock.now
                let images = try await pass(urls, box: box, label: label, pipeline: pipeline, console: console)
                runs.append(DemoRun(label: label, duration: .now - start, statistics: pipeline.statistics.since(before), images: images))
            }
            return runs
        }
    }

    private static func pass(
        _ urls: [URL], box: ImageRequest.Thumbnail, label: String, pipeline: ImagePipeline, console: Console
    ) async throws -> [(name: String, image: DecodedImage)] {
        console.output("Loading \(urls.count) thumbnails, \(label)…")
        let bytesBefore = pipeline.statistics.bytesDownloaded
        let progress = LiveProgress(console: console, total: urls.count) { pipeline.statistics.bytesDownloaded - bytesBefore }
        defer { progress.finish() }
        return try await withThrowingTaskGroup(of: (Int, DecodedImage).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask { (index, try await pipeline.image(for: ImageRequest(url: url, thumbnail: box)).image) }
            }
            var loaded: [(Int, DecodedImage)] = []
            for try await item in group {
                loaded.append(item)
                progress.itemFinished()
            }
            return loaded.sorted { $0.0 < $1.0 }.map { (urls[$0.0].deletingPathExtension().lastPathComponent, $0.1) }
        }
    }

    /// The row of the comparison table.
    var cells: [String] {
        [
            label, duration.seconds >= 1 ? String(format: "%.2f s", duration.seconds) : String(format: "%.1f ms", duration.milliseconds), "\(statistics.downloads)", "\(statistics.memoryHits)",
            "\(statistics.diskHits)", ByteCount.format(statistics.bytesDownloaded),
        ]
    }

    static let headings = ["run", "time", "network fetches", "memory hits", "disk hits", "downloaded"]

    /// The runs as an aligned text table.
    static func table(_ runs: [DemoRun]) -> [String] {
        let rows = [headings] + runs.map(\.cells)
        let widths = headings.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        func format(_ row: [String]) -> String {
            row.enumerated().map { column, cell in
                column == 0 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }
        return [format(rows[0]), String(repeating: "─", count: widths.reduce(0, +) + 2 * (widths.count - 1))] + rows.dropFirst().map(format)
    }
}

extension PipelineStatistics {
    /// The counts added since `earlier`.
    func since(_ earlier: PipelineStatistics) -> PipelineStatistics {
        var delta = PipelineStatistics()
        delta.requests = requests - earlier.requests
        delta.memoryHits = memoryHits - earlier.memoryHits
        delta.diskHits = diskHits - earlier.diskHits
        delta.downloads = downloads - earlier.downloads
        delta.revalidated = revalidated - earlier.revalidated
        delta.bytesDownloaded = bytesDownloaded - earlier.bytesDownloaded
        delta.decodes = decodes - earlier.decodes
        delta.coalesced = coalesced - earlier.coalesced
        delta.cancelled = cancelled - earlier.cancelled
        delta.failed = failed - earlier.failed
        return delta
    }
}
