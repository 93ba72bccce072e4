import Foundation
import Magpie
import MagpieTesting

/// Memory-cache hits: the synchronous lookup and the full async call.
func measureHitCost(into report: inout Report, workspace: URL) async throws {
    var configuration = ImagePipeline.Configuration()
    configuration.diskCache = nil
    let pipeline = ImagePipeline(configuration: configuration)
    let server = try await ImageServer.start()
    server.serve("/hit.jpg", .image(try TestImages.texture(width: 256, height: 256)))
    let request = ImageRequest(url: server.url("/hit.jpg"))
    _ = try await pipeline.image(for: request)

    let syncIterations = 2_000_000
    var found = 0
    let clock = ContinuousClock()
    let syncTime = clock.measure {
        for _ in 0..<syncIterations where pipeline.cachedImage(for: request) != nil { found += 1 }
    }
    precondition(found == syncIterations)
    let syncNs = nanoseconds(syncTime) / Double(syncIterations)
    report.add("memory hit, synchronous `cachedImage(for:)`", "\(format(syncNs)) ns/op", target: "< 100 ns", met: syncNs < 100)

    let asyncIterations = 500_000
    let asyncStart = clock.now
    for _ in 0..<asyncIterations {
        _ = try await pipeline.image(for: request)
    }
    let asyncNs = nanoseconds(clock.now - asyncStart) / Double(asyncIterations)
    report.add("memory hit, `try await image(for:)`", "\(format(asyncNs)) ns/op", target: "< 2,000 ns", met: asyncNs < 2_000)
    await pipeline.shutdown()
    await server.shutdown()
}
