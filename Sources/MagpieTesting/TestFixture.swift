public import Foundation
public import Magpie

/// A fresh loopback server, a private disk-cache directory and a pipeline wired to both, for
/// one test; everything is torn down when `body` returns.
///
/// ```swift
/// try await withTestFixture { fixture in
///     fixture.server.serve("/a.png", .image(png))
///     let response = try await fixture.pipeline.image(for: ImageRequest(url: fixture.server.url("/a.png")))
/// }
/// ```
public struct TestFixture: Sendable {
    /// The loopback server.
    public let server: ImageServer
    /// The pipeline under test.
    public let pipeline: ImagePipeline
    /// The disk-cache directory (removed afterwards).
    public let directory: URL
    /// The clock the pipeline reads.
    public let clock: ManualClock
}

/// Runs `body` with a ``TestFixture``. `configure` adjusts the pipeline's configuration, whose
/// disk cache already points at a private temporary directory.
@discardableResult
public func withTestFixture<T: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    configure: (inout ImagePipeline.Configuration) -> Void = { _ in },
    _ body: (TestFixture) async throws -> T
) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("magpie-test-\(UUID().uuidString)", isDirectory: true)
    let clock = ManualClock()
    var configuration = ImagePipeline.Configuration()
    // Loopback connects take microseconds, but a machine loaded by other suites (or Thread
    // Sanitizer) can hold one for seconds: tests about connect timeouts set their own.
    configuration.connectTimeout = .seconds(60)
    // The machine's memory pressure depends on what else runs beside the test (a CI run's other
    // suites stalled on memory and emptied every pipeline's caches mid-test): a test about
    // pressure injects its own (``ManualMemoryPressure``).
    configuration.memoryPressure = nil
    configuration.diskCache = DataCache.Configuration(directory: directory.appendingPathComponent("cache"))
    configuration.clock = clock.monotonic
    configuration.wallClock = clock.wall
    configure(&configuration)
    let server = try await ImageServer.start()
    let pipeline = ImagePipeline(configuration: configuration)
    let fixture = TestFixture(server: server, pipeline: pipeline, directory: directory, clock: clock)
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
        let result = try await body(fixture)
        await pipeline.shutdown()
        await server.shutdown()
        return result
    } catch {
        await pipeline.shutdown()
        await server.shutdown()
        throw error
    }
}
