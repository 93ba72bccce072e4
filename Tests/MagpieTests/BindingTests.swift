import Foundation
import Magpie
import MagpieTesting
import Testing

/// A stand-in for a view: records everything it was asked to display.
@MainActor
final class RecordingView: ImageDisplaying {
    let imageBinding = ImageBinding()
    private(set) var shown: [DecodedImage?] = []
    var onDeinit: (@Sendable () -> Void)?

    func display(_ image: DecodedImage?) { shown.append(image) }

    /// Widths of what was displayed; 0 for a cleared target.
    var shownWidths: [Int] { shown.map { $0?.width ?? 0 } }

    deinit { onDeinit?() }
}

@Suite("Binding images to targets")
@MainActor
struct BindingTests {
    static let placeholder = DecodedImage(width: 1, height: 1, pixels: [0, 0, 0, 255])


    @Test func showsPlaceholderThenImage() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/a.png", .image(try TestImages.texture(width: 30, height: 20, format: .png)))
            let view = RecordingView()
            let done = AsyncStream.makeStream(of: Void.self)
            let task = fixture.pipeline.bind(
                fixture.server.url("/a.png"), to: view,
                options: .init(placeholder: Self.placeholder, completion: { _ in done.continuation.yield() }))
            #expect(task != nil)
            #expect(view.imageBinding.url == fixture.server.url("/a.png"))
            for await _ in done.stream { break }
            #expect(view.shownWidths == [1, 30])
            #expect(!view.imageBinding.isLoading)
        }
    }

    @Test func memoryHitIsShownBeforeBindReturns() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/m.png", .image(try TestImages.texture(width: 12, height: 12, format: .png)))
            let url = fixture.server.url("/m.png")
            _ = try await fixture.pipeline.image(for: url)
            let view = RecordingView()
            let task = fixture.pipeline.bind(url, to: view, options: .init(placeholder: Self.placeholder))
            #expect(task == nil)
            #expect(view.shownWidths == [12], "no placeholder flash")
            #expect(fixture.server.statistics(for: "/m.png").requests == 1)
        }
    }

    @Test func rebindingCancelsAndNeverShowsTheOldImage() async throws {
        try await withTestFixture { fixture in
            let slow = try TestImages.texture(width: 50, height: 50, format: .png)
            let gate = Gate()
            fixture.server.serve("/old.png", .image(slow, gate: gate))
            fixture.server.serve("/new.png", .image(try TestImages.texture(width: 70, height: 70, format: .png)))
            let view = RecordingView()
            let old = try #require(fixture.pipeline.bind(fixture.server.url("/old.png"), to: view))
            try await waitUntil { fixture.server.statistics(for: "/old.png").requests == 1 }
            let done = AsyncStream.makeStream(of: Void.self)
            fixture.pipeline.bind(
                fixture.server.url("/new.png"), to: view, options: .init(completion: { _ in done.continuation.yield() }))
            for await _ in done.stream { break }
            await #expect(throws: MagpieError.cancelled) { try await old.response }
            gate.open()
            // Load the old URL to the end elsewhere; whatever its first request did meanwhile
            // must not have reached the view.
            _ = try await fixture.pipeline.image(for: fixture.server.url("/old.png"))
            await Task.yield()
            #expect(view.shownWidths == [0, 0, 70])
        }
    }

    @Test func keepingThePreviousRequestFillsTheCacheButNeverShowsIt() async throws {
        try await withTestFixture { fixture in
            let gate = Gate()
            fixture.server.serve("/old.png", .image(try TestImages.texture(width: 50, height: 50, format: .png), gate: gate))
            fixture.server.serve("/new.png", .image(try TestImages.texture(width: 70, height: 70, format: .png)))
            let view = RecordingView()
            let old = try #require(fixture.pipeline.bind(fixture.server.url("/old.png"), to: view))
            fixture.pipeline.bind(fixture.server.url("/new.png"), to: view, options: .init(keepsPreviousRequestRunning: true))
            gate.open()
            #expect(try await old.response.image.width == 50)
            try await waitUntil { view.shownWidths.last == 70 }
            #expect(!view.shownWidths.contains(50))
            #expect(fixture.pipeline.cachedImage(for: ImageRequest(url: fixture.server.url("/old.png"))) != nil)
        }
    }

    @Test func bindingToNilCancelsAndShowsThePlaceholder() async throws {
        try await withTestFixture { fixture in
            let gate = Gate()
            fixture.server.serve("/x.png", .image(try TestImages.texture(width: 50, height: 50, format: .png), gate: gate))
            let view = RecordingView()
            let task = try #require(fixture.pipeline.bind(fixture.server.url("/x.png"), to: view))
            fixture.pipeline.bind(nil, to: view, options: .init(placeholder: Self.placeholder))
            #expect(view.imageBinding.url == nil)
            await #expect(throws: MagpieError.cancelled) { try await task.response }
            gate.open()
            #expect(view.shownWidths == [0, 1])
        }
    }

    @Test func deallocatingTheTargetCancelsItsRequest() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 400, height: 400, format: .png)
            // Forty seconds of body: the view must be gone long before it could finish, even when
            // the main actor is busy with the other suites running beside this one (a 4 s body
            // once completed first in a full parallel run).
            fixture.server.serve("/d.png", ServedRoute(body: bytes, contentType: "image/png", bytesPerSecond: bytes.count / 40))
            var view: RecordingView? = RecordingView()
            let deallocated = AsyncStream.makeStream(of: Void.self)
            view?.onDeinit = { deallocated.continuation.yield() }
            let task = try #require(
                fixture.pipeline.bind(
                    fixture.server.url("/d.png"), to: view!,
                    options: .init(completion: { _ in Issue.record("no callback after the target is gone") })))
            try await waitUntil { fixture.server.statistics(for: "/d.png").bytesSent > 0 }
            view = nil
            for await _ in deallocated.stream { break }
            await #expect(throws: MagpieError.cancelled) { try await task.response }
            try await waitUntil { fixture.server.statistics(for: "/d.png").connectionsClosedEarly == 1 }
        }
    }

    @Test func priorityCanBeLoweredAndRaisedWithoutCancelling() async throws {
        try await withTestFixture(configure: { $0.maximumConcurrentDownloads = 1 }) { fixture in
            let (blocker, gate) = try await SchedulingTests.occupyOnlySlot(fixture, alsoServing: ["p", "q"])
            let first = RecordingView()
            let second = RecordingView()
            fixture.pipeline.bind(fixture.server.url("/p.png"), to: first)
            fixture.pipeline.bind(fixture.server.url("/q.png"), to: second)
            // Both queued behind the blocker before the view scrolls: load, decode and fetch each.
            try await waitUntil { fixture.pipeline.inFlightTaskCount == 9 }
            first.imageBinding.priority = .veryLow  // scrolled off screen
            #expect(first.imageBinding.priority == .veryLow)
            first.imageBinding.priority = .normal  // back again
            second.imageBinding.priority = .veryLow
            gate.open()
            _ = try await blocker.response
            try await waitUntil { first.shownWidths.last == 16 && second.shownWidths.last == 16 }
            #expect(fixture.server.requestLog == ["/blocker.png", "/p.png", "/q.png"])
        }
    }

    @Test func aMissReturnsQuickly() async throws {
        try await withTestFixture { fixture in
            let gate = Gate()
            fixture.server.serve("/quick.png", .image(try TestImages.texture(width: 8, height: 8, format: .png), gate: gate))
            let view = RecordingView()
            // Not a timing assertion: the bind must return while the server still holds the
            // response, which it does until the gate opens.
            let task = fixture.pipeline.bind(fixture.server.url("/quick.png"), to: view)
            #expect(view.imageBinding.isLoading)
            gate.open()
            _ = try await task?.response
        }
    }
}
