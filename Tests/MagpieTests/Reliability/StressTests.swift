import Foundation
import Magpie
import MagpieTesting
import NIOConcurrencyHelpers
import Testing

/// Many tasks hammering one pipeline with overlapping requests, cancellations and priority
/// changes. Run under Thread Sanitizer by `scripts/test`; `MAGPIE_STRESS_REQUESTS` scales it.
@Suite("Stress")
struct StressTests {
    static let urlCount = 500
    static var requestCount: Int {
        ProcessInfo.processInfo.environment["MAGPIE_STRESS_REQUESTS"].flatMap(Int.init) ?? 20_000
    }
    static let workers = 64

    /// Row `index`'s image is `10 + index` pixels wide, so a wrong image cannot pass as right.
    static func width(of index: Int) -> Int { 10 + index }

    struct Tally: Sendable {
        var completed = 0
        var cancelled = 0
        var wrong: [String] = []
        var failures: [String] = []
    }

    @Test func twentyThousandRequestsWithCancellationsAndPriorityChanges() async throws {
        // About a hundred of the 500 decoded images (each 10–509 px by 4 px, RGBA).
        let memoryLimit = 400 * 1024
        try await withTestFixture(configure: { configuration in
            // Small enough that the memory cache evicts all the time, so disk and network paths stay busy.
            configuration.memoryCache = ImageCache.Limits(totalCost: memoryLimit)
            configuration.maximumConcurrentDownloads = 8
        }) { fixture in
            let urls = try (0..<Self.urlCount).map { index in
                let bytes = try TestImages.texture(width: Self.width(of: index), height: 4, format: index.isMultiple(of: 2) ? .png : .jpeg, seed: UInt32(index + 1))
                var route = ServedRoute.image(bytes)
                route.latency = .milliseconds(index % 7)
                fixture.server.serve("/s\(index)", route)
                return fixture.server.url("/s\(index)")
            }
            let tally = NIOLockedValueBox(Tally())
            let perWorker = Self.requestCount / Self.workers
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<Self.workers {
                    group.addTask {
                        var random = SystemRandomNumberGenerator()
                        for step in 0..<perWorker {
                            let index = Int.random(in: 0..<Self.urlCount, using: &random)
                            let priority = ImageRequest.Priority.allCases.randomElement(using: &random)!
                            let task = fixture.pipeline.imageTask(with: ImageRequest(url: urls[index], priority: priority))
                            let roll = Int.random(in: 0..<10, using: &random)
                            if roll == 0 { task.cancel() }
                            if roll == 1 { task.priority = .veryHigh }
                            if roll == 2 { await Task.yield(); task.cancel() }
                            do {
                                let image = try await task.image
                                tally.withLockedValue { tally in
                                    tally.completed += 1
                                    if image.width != Self.width(of: index) { tally.wrong.append("\(index): \(image.width)") }
                                }
                            } catch {
                                if case MagpieError.cancelled? = error as? MagpieError, roll == 0 || roll == 2 {
                                    tally.withLockedValue { $0.cancelled += 1 }
                                } else {
                                    tally.withLockedValue { $0.failures.append("worker \(worker) step \(step) url \(index): \(error)") }
                                }
                            }
                        }
                    }
                }
            }
            let result = tally.withLockedValue { $0 }
            #expect(result.wrong.isEmpty, "\(result.wrong.prefix(5))")
            #expect(result.failures.isEmpty, "every request not cancelled completes: \(result.failures.prefix(5))")
            #expect(result.completed + result.cancelled == perWorker * Self.workers)
            #expect(result.completed > perWorker * Self.workers * 7 / 10)
            try await waitUntil(timeout: .seconds(30)) { fixture.pipeline.inFlightTaskCount == 0 }
            let memory = try #require(fixture.pipeline.memoryCache)
            #expect(memory.totalCost <= memoryLimit, "memory settles within the cache's limit")
            #expect(fixture.pipeline.downloadQueue == (running: 0, waiting: 0))
        }
    }

    /// The request graph under load: processor lists sharing prefixes, variants written to and
    /// read from disk, cancellations in the middle of a processing chain.
    @Test func sharedProcessorChainsUnderCancellation() async throws {
        let processorLists: [(name: String, processors: [any ImageProcessing], halves: Bool)] = [
            ("none", [], false),
            ("crop", [.crop(width: 255, height: 4, gravity: .left)], false),
            ("crop, grey", [.crop(width: 255, height: 4, gravity: .left), .grayscale], false),
            ("crop, blur", [.crop(width: 255, height: 4, gravity: .left), .blur(sigma: 1)], false),
            ("half", [.resize(width: 1000, height: 2, fit: .fit)], true),
        ]
        try await withTestFixture(configure: { configuration in
            configuration.memoryCache = ImageCache.Limits(totalCost: 200 * 1024)
            configuration.diskCachePolicy = .originalsAndVariants
        }) { fixture in
            let count = 120
            let urls = try (0..<count).map { index in
                fixture.server.serve("/p\(index)", .image(try TestImages.texture(width: Self.width(of: index), height: 4, format: .png, seed: UInt32(index + 1))))
                return fixture.server.url("/p\(index)")
            }
            let failures = NIOLockedValueBox([String]())
            let requests = max(1000, Self.requestCount / 5)
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<32 {
                    group.addTask {
                        var random = SystemRandomNumberGenerator()
                        for _ in 0..<(requests / 32) {
                            let index = Int.random(in: 0..<count, using: &random)
                            let list = processorLists.randomElement(using: &random)!
                            let task = fixture.pipeline.imageTask(with: ImageRequest(url: urls[index], processors: list.processors))
                            let cancels = Int.random(in: 0..<8, using: &random) == 0
                            if cancels { task.cancel() }
                            do {
                                let image = try await task.image
                                let width = Self.width(of: index)
                                let expected = list.halves ? (width + 1) / 2 : list.processors.isEmpty ? width : min(255, width)
                                if image.width != expected {
                                    failures.withLockedValue { $0.append("worker \(worker) \(list.name) \(index): width \(image.width), expected \(expected)") }
                                }
                            } catch {
                                if !(cancels && (error as? MagpieError) == .cancelled) {
                                    failures.withLockedValue { $0.append("worker \(worker) \(list.name) \(index): \(error)") }
                                }
                            }
                        }
                    }
                }
            }
            #expect(failures.withLockedValue { $0 }.isEmpty, "\(failures.withLockedValue { $0.prefix(5) })")
            try await waitUntil(timeout: .seconds(30)) { fixture.pipeline.inFlightTaskCount == 0 }
            #expect(fixture.server.totalRequests <= count * 2, "downloads are shared: \(fixture.server.totalRequests)")
        }
    }
}
