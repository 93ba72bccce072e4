import Foundation
import Magpie
import MagpieTesting
import Testing

// The closure-taking API used from isolated code, in the forms an app writes: that these
// compile in Swift 6 mode is most of the test (issue 33); the runs check that each closure
// runs where it was written. The consumer-package test does the same from outside the package.

/// A main-actor model, as a UI or a main-actor service keeps one.
@MainActor final class MainActorGallery {
    var sizes: [String] = []
    var finished = 0

    func load(_ urls: [URL]) async throws {
        try await withImagePipeline { pipeline in
            for url in urls {
                let image = try await pipeline.image(for: url)
                sizes.append("\(image.width)x\(image.height)")  // main-actor state, no hop
            }
        }
    }

    func load(_ url: URL, with pipeline: ImagePipeline) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            pipeline.loadImage(with: ImageRequest(url: url)) { result in
                MainActor.assertIsolated("a completion written on the main actor runs there")
                if case .success(let response) = result { self.sizes.append("\(response.image.width)x\(response.image.height)") }
                done.resume()
            }
        }
    }

    func prefetch(_ urls: [URL], with pipeline: ImagePipeline) async {
        let prefetcher = ImagePrefetcher(pipeline: pipeline) { _ in
            MainActor.assertIsolated("progress written on the main actor is reported there")
            self.finished += 1
        }
        prefetcher.start(urls)
        await prefetcher.wait()
    }
}

/// An actor that loads images into its own state.
actor ThumbnailStore {
    private(set) var widths: [Int] = []

    func load(_ urls: [URL]) async throws {
        try await withImagePipeline { pipeline in
            for url in urls {
                var request = ImageRequest(url: url)
                request.thumbnail = .init(width: 16, height: 16)
                widths.append(try await pipeline.image(for: request).image.width)  // the actor's state
            }
        }
    }

    func load(_ url: URL, with pipeline: ImagePipeline) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            pipeline.loadImage(with: ImageRequest(url: url)) { result in
                self.assertIsolated("a completion that uses the actor runs on it")
                self.widths.append((try? result.get().image.width) ?? -1)
                done.resume()
            }
        }
    }
}

@Suite("The API from any isolation")
struct IsolationTests {
    static func serve(_ fixture: TestFixture, count: Int) throws -> [URL] {
        let bytes = try TestImages.texture(width: 40, height: 30, format: .png)
        return (0..<count).map { index in
            fixture.server.serve("/i\(index).png", .image(bytes))
            return fixture.server.url("/i\(index).png")
        }
    }

    @Test @MainActor func mainActorCodeUsesItsStateInEveryClosure() async throws {
        try await withTestFixture { fixture in
            let urls = try Self.serve(fixture, count: 3)
            let gallery = MainActorGallery()
            try await gallery.load(urls)
            #expect(gallery.sizes == ["40x30", "40x30", "40x30"])
            await gallery.load(urls[0], with: fixture.pipeline)
            #expect(gallery.sizes.count == 4)
            await gallery.prefetch(urls, with: fixture.pipeline)
            #expect(gallery.finished == 3)
        }
    }

    @Test func anActorUsesItsStateInEveryClosure() async throws {
        try await withTestFixture { fixture in
            let urls = try Self.serve(fixture, count: 2)
            let store = ThumbnailStore()
            try await store.load(urls)
            await store.load(urls[1], with: fixture.pipeline)
            #expect(await store.widths == [16, 16, 40])
        }
    }

    @Test func theResultNeedNotBeSendable() async {
        final class Tally { var count = 0 }  // not Sendable: it stays in this task
        let tally = Tally()
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = nil
        let result = await withImagePipeline(configuration: configuration) { _ in
            tally.count += 1
            return tally
        }
        #expect(result.count == 1)
    }
}
