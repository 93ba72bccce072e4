import Foundation
import Magpie
import MagpieTesting
import Testing

// The Getting started article's snippets, compiled and run against the loopback server so the
// documentation cannot drift from the API.
@MainActor final class AvatarCell: ImageDisplaying {
    let imageBinding = ImageBinding()
    var image: DecodedImage?
    func display(_ image: DecodedImage?) { self.image = image }
}

@MainActor func configure(_ cell: AvatarCell, with url: URL, pipeline: ImagePipeline) {
    pipeline.bind(url, to: cell, options: .init(thumbnail: .init(width: 96, height: 96, fit: .fill)))
}

@Suite("Getting started article")
struct GettingStartedTests {
    // "Add Magpie", "Load an image" and "From the main actor or an actor" are compiled and run
    // from a package of their own, as users write them (ConsumerPackageTests).

    func loadThumbnail(_ pipeline: ImagePipeline, url: URL) async throws -> DecodedImage {
        let request = ImageRequest(url: url, thumbnail: .init(width: 256, height: 256, fit: .fill))
        let response = try await pipeline.image(for: request)
        print("served from \(response.source)")
        return response.image
    }

    func loadWithProgress(_ pipeline: ImagePipeline, url: URL) async throws -> DecodedImage {
        let task = pipeline.imageTask(with: ImageRequest(url: url, priority: .low))
        task.priority = .high
        Task {
            for await event in task.events {
                if case .progress(let received, let expected) = event {
                    print("\(received) of \(expected.map(String.init) ?? "?") bytes")
                }
            }
        }
        return try await task.image
    }

    func describe(_ pipeline: ImagePipeline, url: URL) async -> String {
        do {
            let image = try await pipeline.image(for: url)
            return "\(image.width)x\(image.height)"
        } catch .httpStatus(let code, _) {
            return "the server said \(code)"
        } catch .cancelled {
            return "cancelled"
        } catch {
            return error.description
        }
    }

    func makePipeline(token: String) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.maximumConcurrentDownloads = 4
        configuration.requestModifier = { request in
            request.headers["Authorization"] = "Bearer \(token)"
        }
        return ImagePipeline(configuration: configuration)
    }

    @Test @MainActor func snippetsWork() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/a.jpg", .image(try TestImages.texture(width: 600, height: 400)))
            let url = fixture.server.url("/a.jpg")
            let thumbnail = try await loadThumbnail(fixture.pipeline, url: url)
            #expect(thumbnail.width == 256 && thumbnail.height == 256)
            #expect(try await loadWithProgress(fixture.pipeline, url: url).width == 600)
            #expect(await describe(fixture.pipeline, url: fixture.server.url("/missing.jpg")) == "the server said 404")
            let cell = AvatarCell()
            configure(cell, with: url, pipeline: fixture.pipeline)
            try await waitUntil { cell.image?.width == 96 }
            let configured = makePipeline(token: "t")
            #expect(configured.configuration.maximumConcurrentDownloads == 4)
            await configured.shutdown()
        }
    }
}
