import Foundation
import Magpie
import MagpieTesting
import Testing

// The Memory budget article's snippets, compiled and run.
func makeServerPipeline(cacheDirectory: URL) -> ImagePipeline {
    var configuration = ImagePipeline.Configuration()
    configuration.diskCache = DataCache.Configuration(directory: cacheDirectory)
    // A quarter of a 2 GB container for decoded images; the rest for work in flight.
    configuration.memoryCache = ImageCache.Limits(totalCost: 512 * 1024 * 1024)
    var pressure = SystemMemoryPressure()
    pressure.usageThreshold = 0.8
    configuration.memoryPressure = pressure
    return ImagePipeline(configuration: configuration)
}

func drainForMaintenance(_ pipeline: ImagePipeline) {
    let freed = pipeline.trimMemory(reason: "maintenance window")
    print("freed \(freed / 1_048_576) MB of decoded images")
}

@Suite("Memory budget article")
struct MemoryBudgetArticleTests {
    @Test func serverPipelineLoadsAndDrains() async throws {
        let server = try await ImageServer.start()
        server.serve("/a.png", .image(try TestImages.texture(width: 32, height: 32, format: .png)))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-article-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configured = makeServerPipeline(cacheDirectory: directory)
        let pressure = configured.configuration.memoryPressure as? SystemMemoryPressure
        #expect(pressure?.usageThreshold == 0.8)
        await configured.shutdown()
        // The article's configuration, but deaf to the machine's memory pressure, which the
        // suites running beside this test can raise and which would trim the cache on its own.
        var quiet = configured.configuration
        quiet.memoryPressure = nil
        let pipeline = ImagePipeline(configuration: quiet)
        #expect(pipeline.memoryCache != nil)
        _ = try await pipeline.image(for: server.url("/a.png"))
        #expect(pipeline.memoryCache?.count == 1)
        drainForMaintenance(pipeline)
        #expect(pipeline.memoryCache?.count == 0)
        #expect(pipeline.statistics.memoryTrims == 1)
        await pipeline.shutdown()
        await server.shutdown()
    }
}
