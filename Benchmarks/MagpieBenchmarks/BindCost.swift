import Foundation
import Magpie
import MagpieTesting

/// A target for measuring binds; it only counts what it is asked to show.
@MainActor
final class CountingTarget: ImageDisplaying {
    let imageBinding = ImageBinding()
    var displays = 0
    func display(_ image: DecodedImage?) { displays += 1 }
}

/// How long `bind` holds the main actor on a cache miss (the load itself continues elsewhere).
@MainActor
func measureBindMissCost(into report: inout Report) async throws {
    var configuration = ImagePipeline.Configuration()
    configuration.diskCache = nil
    let pipeline = ImagePipeline(configuration: configuration)
    let server = try await ImageServer.start()
    let gate = Gate()
    let bytes = try TestImages.texture(width: 16, height: 16, format: .png)
    let count = 2_000
    let urls = (0..<count).map { index -> URL in
        server.serve("/b\(index).png", .image(bytes, gate: gate))
        return server.url("/b\(index).png")
    }
    let targets = (0..<count).map { _ in CountingTarget() }
    let clock = ContinuousClock()
    var times: [Double] = []
    for (target, url) in zip(targets, urls) {
        let start = clock.now
        pipeline.bind(url, to: target)
        times.append(nanoseconds(clock.now - start) / 1_000)
    }
    for target in targets { pipeline.bind(nil, to: target) }
    gate.open()
    let result = median(times)
    let p99 = times.sorted()[times.count * 99 / 100]
    report.add("`bind` on a cache miss, main-actor time (median / p99 of \(count))", "\(format(result)) µs / \(format(p99)) µs", target: "microseconds", met: p99 < 100)
    await pipeline.shutdown()
    await server.shutdown()
}
