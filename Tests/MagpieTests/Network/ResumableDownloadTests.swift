import Foundation
@testable import Magpie
import MagpieTesting
import Testing

/// A download that breaks off keeps what arrived when the server allows ranges and names the
/// version; the next load asks for the rest with `Range` and `If-Range` and appends it. The
/// loopback origin cuts the connection mid-body, then serves the rest (or a new file).
@Suite("Resumable downloads")
struct ResumableDownloadTests {
    static let photo: [UInt8] = (try? TestImages.texture(width: 900, height: 700, format: .jpeg)) ?? []
    static let other: [UInt8] = (try? TestImages.texture(width: 900, height: 700, format: .jpeg, seed: 7)) ?? []

    /// A route that sends `body` up to `cut`, then closes the connection once `gate` opens.
    static func route(
        _ body: [UInt8], etag: String? = "\"v1\"", lastModified: String? = nil, cutAt cut: Int?, gate: Gate? = nil
    ) -> ServedRoute {
        var route = ServedRoute.image(body)
        route.etag = etag
        route.lastModified = lastModified
        route.acceptsRanges = true
        route.fault = cut.map { .truncate(afterBytes: $0) }
        route.faultGate = gate
        return route
    }

    /// Loads `url` from a route cut at `cut` behind `gate`: once the pipeline has received
    /// everything before the cut, the origin drops the connection; the load fails.
    static func loadBreakingOff(_ url: URL, at cut: Int, gate: Gate, in fixture: TestFixture) async {
        let task = fixture.pipeline.imageTask(with: ImageRequest(url: url))
        for await event in task.events {
            if case .progress(let received, _) = event, received >= cut { break }
        }
        gate.open()
        await #expect(throws: MagpieError.self) { try await task.response }
    }

    /// Where the retry's `Range: bytes=N-` starts.
    static func rangeStart(_ statistics: RouteStatistics) -> Int? {
        statistics.lastRequestHeaders["range"].flatMap { Int($0.dropFirst("bytes=".count).dropLast()) }
    }

    @Test func theRetryAsksOnlyForTheRest() async throws {
        try await withTestFixture { fixture in
            let half = Self.photo.count / 2
            try #require(half > 64 * 1024)
            let gate = Gate()
            fixture.server.serve("/photo.jpg", Self.route(Self.photo, cutAt: half, gate: gate))
            let url = fixture.server.url("/photo.jpg")
            await Self.loadBreakingOff(url, at: half, gate: gate, in: fixture)

            fixture.server.update("/photo.jpg") { $0.fault = nil }
            let image = try await fixture.pipeline.image(for: url)
            #expect((image.width, image.height) == (900, 700))
            let statistics = fixture.server.statistics(for: "/photo.jpg")
            #expect(statistics.lastRequestHeaders["range"] == "bytes=\(half)-")
            #expect(statistics.lastRequestHeaders["if-range"] == "\"v1\"")
            #expect(statistics.partialResponses == 1)
            // The first half once, the rest once: nothing sent twice.
            #expect(statistics.bytesSent == Self.photo.count)
            #expect(fixture.pipeline.statistics.resumedDownloads == 1)
            #expect(fixture.pipeline.statistics.bytesDownloaded == Self.photo.count - half)
            // The whole file is what was stored.
            let cache = try #require(fixture.pipeline.dataCache)
            await cache.flush()
            #expect(await cache.entry(for: url.absoluteString)?.data == Self.photo)
        }
    }

    /// The file changed between the tries: `If-Range` no longer matches, the origin sends the
    /// new file whole, and that is what loads and is stored, not a splice of two versions.
    @Test func aChangedFileIsFetchedWhole() async throws {
        try await withTestFixture { fixture in
            let gate = Gate()
            fixture.server.serve("/photo.jpg", Self.route(Self.photo, cutAt: Self.photo.count / 2, gate: gate))
            let url = fixture.server.url("/photo.jpg")
            await Self.loadBreakingOff(url, at: Self.photo.count / 2, gate: gate, in: fixture)

            fixture.server.serve("/photo.jpg", Self.route(Self.other, etag: "\"v2\"", cutAt: nil))
            _ = try await fixture.pipeline.image(for: url)
            let statistics = fixture.server.statistics(for: "/photo.jpg")
            #expect(statistics.lastRequestHeaders["if-range"] == "\"v1\"")
            #expect(statistics.partialResponses == 0)
            #expect(fixture.pipeline.statistics.resumedDownloads == 0)
            let cache = try #require(fixture.pipeline.dataCache)
            await cache.flush()
            #expect(await cache.entry(for: url.absoluteString)?.data == Self.other)
        }
    }

    /// A retry that meets a server error keeps the part for the one after.
    @Test func aFailedRetryKeepsThePart() async throws {
        try await withTestFixture { fixture in
            let gate = Gate()
            fixture.server.serve("/photo.jpg", Self.route(Self.photo, cutAt: 100_000, gate: gate))
            let url = fixture.server.url("/photo.jpg")
            await Self.loadBreakingOff(url, at: 100_000, gate: gate, in: fixture)
            fixture.server.update("/photo.jpg") { $0.fault = nil; $0.status = 503 }
            await #expect(throws: MagpieError.httpStatus(503, url)) { try await fixture.pipeline.image(for: url) }
            fixture.server.update("/photo.jpg") { $0.status = 200 }
            _ = try await fixture.pipeline.image(for: url)
            #expect(fixture.server.statistics(for: "/photo.jpg").lastRequestHeaders["range"] == "bytes=100000-")
            #expect(fixture.server.statistics(for: "/photo.jpg").partialResponses == 1)
            #expect(fixture.pipeline.statistics.resumedDownloads == 1)
        }
    }

    @Test func lastModifiedIsAStrongEnoughValidator() async throws {
        try await withTestFixture { fixture in
            let date = "Tue, 24 Nov 2026 10:00:00 GMT"
            let gate = Gate()
            fixture.server.serve("/photo.jpg", Self.route(Self.photo, etag: nil, lastModified: date, cutAt: 100_000, gate: gate))
            let url = fixture.server.url("/photo.jpg")
            await Self.loadBreakingOff(url, at: 100_000, gate: gate, in: fixture)
            fixture.server.update("/photo.jpg") { $0.fault = nil }
            _ = try await fixture.pipeline.image(for: url)
            #expect(fixture.server.statistics(for: "/photo.jpg").lastRequestHeaders["range"] == "bytes=100000-")
            #expect(fixture.server.statistics(for: "/photo.jpg").lastRequestHeaders["if-range"] == date)
            #expect(fixture.pipeline.statistics.resumedDownloads == 1)
        }
    }

    /// Without ranges, or with only a weak validator (which `If-Range` never matches), nothing
    /// is kept and the retry downloads the whole file.
    @Test(arguments: ["no ranges", "weak etag"])
    func responsesThatCannotBeResumedAreNotKept(_ case: String) async throws {
        try await withTestFixture { fixture in
            let gate = Gate()
            var route = Self.route(Self.photo, etag: `case` == "weak etag" ? "W/\"v1\"" : "\"v1\"", cutAt: 100_000, gate: gate)
            route.acceptsRanges = `case` != "no ranges"
            fixture.server.serve("/photo.jpg", route)
            let url = fixture.server.url("/photo.jpg")
            await Self.loadBreakingOff(url, at: 100_000, gate: gate, in: fixture)
            fixture.server.update("/photo.jpg") { $0.fault = nil }
            _ = try await fixture.pipeline.image(for: url)
            #expect(fixture.server.statistics(for: "/photo.jpg").lastRequestHeaders["range"] == nil)
            #expect(fixture.pipeline.statistics.resumedDownloads == 0)
        }
    }

    /// A load cancelled with nobody else waiting keeps its part for a later request.
    @Test func aCancelledLoadKeepsItsPartForLater() async throws {
        try await withTestFixture { fixture in
            var route = Self.route(Self.photo, cutAt: nil)
            route.bytesPerSecond = 200_000
            fixture.server.serve("/photo.jpg", route)
            let url = fixture.server.url("/photo.jpg")
            let task = fixture.pipeline.imageTask(with: ImageRequest(url: url))
            for await event in task.events {
                if case .progress(let received, _) = event, received >= 64 * 1024 { break }
            }
            task.cancel()
            await #expect(throws: MagpieError.cancelled) { try await task.response }
            try await waitUntil { fixture.pipeline.inFlightTaskCount == 0 }
            // The pool lets abandoned work go at once; the download keeps its part as its task
            // ends, a moment later (under Thread Sanitizer, after the next load had started).
            try await waitUntil { fixture.pipeline.context.loader.partials?.usage.count == 1 }

            fixture.server.update("/photo.jpg") { $0.bytesPerSecond = nil }
            _ = try await fixture.pipeline.image(for: url)
            let start = try #require(Self.rangeStart(fixture.server.statistics(for: "/photo.jpg")))
            #expect(start >= 64 * 1024 && start < Self.photo.count, "resumed at \(start)")
            #expect(fixture.pipeline.statistics.resumedDownloads == 1)
            let cache = try #require(fixture.pipeline.dataCache)
            await cache.flush()
            #expect(await cache.entry(for: url.absoluteString)?.data == Self.photo)
        }
    }
}

/// The store's bounds and the reading of a range answer, without a network.
@Suite("Partial bodies")
struct PartialBodyTests {
    static func part(_ count: Int, total: Int = 1_000_000) -> PartialBody {
        PartialBody(bytes: [UInt8](repeating: 1, count: count), validator: .etag("\"v\""), total: total)
    }

    @Test func keptWithinCountBytesAndLifetime() {
        let clock = ManualClock()
        var limits = ResumableDownloads()
        limits.maximumCount = 2
        limits.maximumBytes = 250_000
        limits.minimumBytes = 1_000
        limits.lifetime = .seconds(60)
        let store = PartialBodies(limits: limits, now: clock.monotonic)
        store.keep(Self.part(500), for: "tiny")  // under the minimum
        store.keep(Self.part(300_000), for: "huge")  // over the byte limit alone
        store.keep(Self.part(1_000_000), for: "whole")  // nothing missing
        #expect(store.usage.count == 0)
        store.keep(Self.part(100_000), for: "a")
        store.keep(Self.part(100_000), for: "b")
        store.keep(Self.part(100_000), for: "c")  // the oldest goes: count
        #expect(store.usage == (2, 200_000))
        #expect(store.take("a") == nil)
        store.keep(Self.part(120_000), for: "d")  // the oldest goes: bytes
        #expect(store.usage == (2, 220_000))
        #expect(store.take("b") == nil)
        clock.advance(by: .seconds(61))
        #expect(store.take("d") == nil)
        store.keep(Self.part(100_000), for: "e")
        #expect(store.take("e")?.bytes.count == 100_000)
        #expect(store.take("e") == nil, "taking removes it")
    }

    @Test func answersAreReadStrictly() {
        let part = Self.part(400, total: 1_000)
        #expect(part.answer(status: 206, contentRange: "bytes 400-999/1000", etag: "\"v\"") == .rest)
        #expect(part.answer(status: 206, contentRange: "bytes 400-999/1000", etag: nil) == .rest)
        #expect(part.answer(status: 200, contentRange: nil, etag: "\"w\"") == .whole)
        for range in ["bytes 0-999/1000", "bytes 400-998/1000", "bytes 400-999/1001", "bytes 400-999/*", "items 400-999/1000", "junk"] {
            #expect(part.answer(status: 206, contentRange: range, etag: nil) == .unusable, "\(range)")
        }
        #expect(part.answer(status: 206, contentRange: nil, etag: nil) == .unusable)
        #expect(part.answer(status: 206, contentRange: "bytes 400-999/1000", etag: "\"other\"") == .unusable)
        #expect(part.answer(status: 416, contentRange: "bytes */1000", etag: nil) == .unusable)
        #expect(part.answer(status: 503, contentRange: nil, etag: nil) == .failed)
        #expect(part.answer(status: 404, contentRange: nil, etag: nil) == .failed)
        #expect(PartialBody.validator(etag: "W/\"v\"", lastModified: nil) == nil)
        #expect(PartialBody.validator(etag: "W/\"v\"", lastModified: "date") == .lastModified("date"))
        #expect(PartialBody.validator(etag: "\"v\"", lastModified: "date") == .etag("\"v\""))
    }
}
