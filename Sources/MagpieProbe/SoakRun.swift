import Foundation
import Magpie
import MagpieTesting

/// Loads many distinct URLs of real-size photos (or animations) through one pipeline, as a
/// server does for weeks, and reports the process's memory after every batch. Each URL is
/// distinct (a query string), so every load downloads and decodes; the disk cache is off.
enum SoakRun {
    struct Settings {
        var photos: URL
        var loads: Int
        var concurrency: Int
        var thumbnail: ImageRequest.Thumbnail?
        var memoryCache: Bool
        var reportEvery: Int
    }

    static func run(_ settings: Settings) async throws {
        let server = try await ImageServer.start()
        let paths = try server.serveDirectory(settings.photos).filter { path in [".jpg", ".gif", ".webp"].contains { path.hasSuffix($0) } }
        guard !paths.isEmpty else {
            FileHandle.standardError.write(Data("no .jpg, .gif or .webp files in \(settings.photos.path)\n".utf8))
            exit(2)
        }
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = nil
        if !settings.memoryCache { configuration.memoryCache = nil }
        configuration.maximumConcurrentDownloads = settings.concurrency
        let encoder = JSONEncoder()
        await withImagePipeline(configuration: configuration) { pipeline in
            var finished = 0
            var failures = 0
            await withTaskGroup(of: Bool.self) { group in
                var next = 0
                func addLoad() {
                    let url = server.url("\(paths[next % paths.count])?n=\(next)")
                    let request = ImageRequest(url: url, thumbnail: settings.thumbnail)
                    next += 1
                    group.addTask {
                        do {
                            _ = try await pipeline.image(for: request)
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                while next < min(settings.concurrency, settings.loads) { addLoad() }
                for await succeeded in group {
                    finished += 1
                    if !succeeded { failures += 1 }
                    if finished % settings.reportEvery == 0 || finished == settings.loads {
                        let sample = SoakSample(
                            loads: finished, failures: failures, resident: ProcessMemory.resident, peak: ProcessMemory.peak,
                            memoryCacheCost: pipeline.memoryCache?.totalCost ?? 0)
                        let line = (try? encoder.encode(sample)) ?? Data("{}".utf8)
                        FileHandle.standardOutput.write(line + Data("\n".utf8))
                    }
                    if next < settings.loads { addLoad() }
                }
            }
        }
        await server.shutdown()
    }
}
