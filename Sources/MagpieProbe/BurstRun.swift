import Foundation
import Magpie
import MagpieTesting

/// Loads every URL at once through a pipeline with the default configuration (its disk cache in
/// `cacheDirectory`), as a crawler handed a page of links would, and prints one JSON line: how
/// many loaded, and the process's peak resident memory.
enum BurstRun {
    struct Report: Codable {
        var loaded: Int
        var failures: [String]
        var peak: Int
        var resident: Int
    }

    static func run(urls: [URL], thumbnail: ImageRequest.Thumbnail?, cacheDirectory: URL) async {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = DataCache.Configuration(directory: cacheDirectory)
        let outcomes = await withImagePipeline(configuration: configuration) { pipeline in
            await withTaskGroup(of: String?.self) { group in
                for url in urls {
                    group.addTask {
                        do {
                            // Only the size is kept: the caller drops each image as a crawler would.
                            _ = try await pipeline.image(for: ImageRequest(url: url, thumbnail: thumbnail)).image.width
                            return nil
                        } catch {
                            return "\(url.lastPathComponent): \(error)"
                        }
                    }
                }
                var failures: [String] = []
                for await failure in group { if let failure { failures.append(failure) } }
                return failures
            }
        }
        let report = Report(
            loaded: urls.count - outcomes.count, failures: outcomes, peak: ProcessMemory.peak, resident: ProcessMemory.resident)
        FileHandle.standardOutput.write(((try? JSONEncoder().encode(report)) ?? Data("{}".utf8)) + Data("\n".utf8))
    }
}
