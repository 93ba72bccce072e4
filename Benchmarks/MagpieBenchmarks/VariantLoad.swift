import Foundation
import Magpie
import MagpieTesting

/// Avatars (256 px, filled and rounded) from the gallery with the variants policy: a cold load,
/// then a new pipeline on the same disk cache, which finds the encoded variants.
func measureVariantLoad(_ files: [URL], into report: inout Report, workspace: URL) async throws {
    let server = try await ImageServer.start()
    let urls = try files.map { file in
        let path = "/variants/" + file.lastPathComponent
        server.serve(path, .image(Array(try Data(contentsOf: file))))
        return server.url(path)
    }
    var configuration = ImagePipeline.Configuration()
    configuration.diskCache = .init(directory: workspace.appendingPathComponent("variant-cache"))
    configuration.diskCachePolicy = .originalsAndVariants
    let processors: [any ImageProcessing] = [.resize(width: 256, height: 256, fit: .fill), .roundedCorners(radius: 24)]
    let requests = urls.map { ImageRequest(url: $0, thumbnail: .init(width: 256, height: 256, fit: .fill), processors: processors) }

    func loadAll() async throws -> (Duration, PipelineStatistics) {
        try await withImagePipeline(configuration: configuration) { pipeline in
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for request in requests { group.addTask { _ = try await pipeline.image(for: request) } }
                try await group.waitForAll()
            }
            return (ContinuousClock.now - start, pipeline.statistics)
        }
    }
    let (cold, coldStatistics) = try await loadAll()
    let (warm, warmStatistics) = try await loadAll()
    await server.shutdown()
    guard coldStatistics.variantsStored == urls.count, warmStatistics.diskHits == urls.count, warmStatistics.processorRuns == 0 else {
        throw BenchmarkError.childFailed("the warm pass did not come from the variants: \(warmStatistics)")
    }
    let ratio = milliseconds(cold) / milliseconds(warm)
    report.add("\(urls.count) gallery JPEGs → 256 px rounded avatars, cold (download, decode, process, store)", "\(format(milliseconds(cold), 0)) ms")
    report.add("same, new pipeline, variants on disk", "\(format(milliseconds(warm), 0)) ms = \(format(ratio, 1))× faster", target: "≥ 10×", met: ratio >= 10)
}
