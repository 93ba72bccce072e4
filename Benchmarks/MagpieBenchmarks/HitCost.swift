import Foundation
import Magpie
import MagpieTesting
import NIOConcurrencyHelpers

/// Memory-cache hits: the synchronous lookup and the full async call.
func measureHitCost(into report: inout Report, workspace: URL) async throws {
    var configuration = ImagePipeline.Configuration()
    configuration.diskCache = nil
    let pipeline = ImagePipeline(configuration: configuration)
    let server = try await ImageServer.start()
    server.serve("/hit.jpg", .image(try TestImages.texture(width: 256, height: 256)))
    let request = ImageRequest(url: server.url("/hit.jpg"))
    _ = try await pipeline.image(for: request)

    // The floor, measured alternately with the hit in the same run: the same key type built from
    // the request, looked up in a plain dictionary under the same kind of lock.
    guard let image = pipeline.cachedImage(for: request) else { fatalError("the image should be in memory") }
    let floorKey = { (request: ImageRequest) in
        ImageCacheKey(dataKey: request.url.absoluteString, thumbnail: request.thumbnail, processors: [], firstFrameOnly: false, sourcePolicy: nil)
    }
    let dictionary = NIOLockedValueBox([floorKey(request): image])
    let syncIterations = 2_000_000
    let clock = ContinuousClock()
    var hits: [Double] = []
    var floors: [Double] = []
    for _ in 0..<3 {
        var found = 0
        let hitTime = clock.measure {
            for _ in 0..<syncIterations where pipeline.cachedImage(for: request) != nil { found += 1 }
        }
        let floorTime = clock.measure {
            for _ in 0..<syncIterations where dictionary.withLockedValue({ $0[floorKey(request)] }) != nil { found += 1 }
        }
        precondition(found == 2 * syncIterations)
        hits.append(nanoseconds(hitTime) / Double(syncIterations))
        floors.append(nanoseconds(floorTime) / Double(syncIterations))
    }
    let syncNs = hits.sorted()[1]
    let floorNs = floors.sorted()[1]
    report.add(
        "memory hit, synchronous `cachedImage(for:)`, median of 3 alternating runs (all: \(hits.map { format($0) }.joined(separator: ", ")))",
        "\(format(syncNs)) ns/op", target: "< 100 ns", met: syncNs < 100)
    report.add(
        "its floor: the same key built and looked up in a `[ImageCacheKey: DecodedImage]` under a `NIOLockedValueBox` (all: \(floors.map { format($0) }.joined(separator: ", ")))",
        "\(format(floorNs)) ns/op; hit = \(format(syncNs / floorNs))× floor", target: "hit ≤ 2× floor", met: syncNs <= 2 * floorNs)

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
