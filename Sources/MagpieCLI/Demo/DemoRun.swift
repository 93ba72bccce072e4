import Foundation
import Magpie

/// One pass over the demo gallery through a fresh pipeline.
struct DemoRun {
    let label: String
    let duration: Duration
    let statistics: PipelineStatistics
    let images: [(name: String, image: DecodedImage)]

    /// Loads every URL through one new pipeline once per label, so the first pass sees the
    /// caches as the configuration left them and later passes see the pipeline's own memory cache.
    static func load(
        _ urls: [URL], box: ImageRequest.Thumbnail, labels: [String], configuration: ImagePipeline.Configuration
    ) async throws -> [DemoRun] {
        try await withImagePipeline(configuration: configuration) { pipeline in
            var runs: [DemoRun] = []
            for label in labels {
                let before = pipeline.statistics
                let clock = ContinuousClock()
                let start = clock.now
                let images = try await pass(urls, box: box, label: label, pipeline: pipeline)
                runs.append(DemoRun(label: label, duration: clock.now - start, statistics: pipeline.statistics.since(before), images: images))
            }
            return runs
        }
    }

    private static func pass(
        _ urls: [URL], box: ImageRequest.Thumbnail, label: String, pipeline: ImagePipeline
    ) async throws -> [(name: String, image: DecodedImage)] {
        print("Loading \(urls.count) thumbnails, \(label)…")
        return try await withThrowingTaskGroup(of: (Int, DecodedImage).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask { (index, try await pipeline.image(for: ImageRequest(url: url, thumbnail: box)).image) }
            }
            var loaded: [(Int, DecodedImage)] = []
            for try await item in group {
                loaded.append(item)
                if loaded.count % 50 == 0 || loaded.count == urls.count { print("  \(loaded.count)/\(urls.count)") }
            }
            return loaded.sorted { $0.0 < $1.0 }.map { (urls[$0.0].deletingPathExtension().lastPathComponent, $0.1) }
        }
    }

    var summaryRow: String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        let megabytes = Double(statistics.bytesDownloaded) / 1_048_576
        return "| \(label) | \(String(format: "%.0f", milliseconds)) ms | \(statistics.downloads) | \(statistics.memoryHits) | \(statistics.diskHits) | \(String(format: "%.1f", megabytes)) MB |"
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
        delta.bytesDownloaded = bytesDownloaded - earlier.bytesDownloaded
        delta.decodes = decodes - earlier.decodes
        return delta
    }
}
