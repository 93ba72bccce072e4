import Foundation
import Magpie
import MagpieTesting
import NIOConcurrencyHelpers
import Testing

/// A processor that counts its runs and remembers the sizes it was given.
final class CountingProcessor: ImageProcessing {
    let identifier: String
    private let inner: (any ImageProcessing)?
    private let inputs = NIOLockedValueBox([(width: Int, height: Int)]())

    init(_ identifier: String, wrapping inner: (any ImageProcessing)? = nil) {
        self.identifier = identifier
        self.inner = inner
    }

    var runs: Int { inputs.withLockedValue { $0.count } }
    var inputSizes: [(width: Int, height: Int)] { inputs.withLockedValue { $0 } }

    func process(_ image: DecodedImage) throws(MagpieError) -> DecodedImage {
        inputs.withLockedValue { $0.append((image.width, image.height)) }
        return try inner?.process(image) ?? image
    }
}

@Suite("Processors in the pipeline")
struct ProcessingPipelineTests {
    @Test func requestsSharingAPrefixShareItsWork() async throws {
        try await withTestFixture { fixture in
            let gate = Gate()
            fixture.server.serve("/shared.png", .image(try TestImages.texture(width: 64, height: 48, format: .png), gate: gate))
            let a = CountingProcessor("test.a")
            let b = CountingProcessor("test.b")
            let c = CountingProcessor("test.c")
            let url = fixture.server.url("/shared.png")
            let first = fixture.pipeline.imageTask(with: ImageRequest(url: url, processors: [a, b]))
            let second = fixture.pipeline.imageTask(with: ImageRequest(url: url, processors: [a, c]))
            try await waitUntil { fixture.server.totalRequests == 1 }
            gate.open()
            _ = try await (first.response, second.response)
            #expect(fixture.server.statistics(for: "/shared.png").requests == 1)
            #expect((a.runs, b.runs, c.runs) == (1, 1, 1))
            let statistics = fixture.pipeline.statistics
            #expect(statistics.downloads == 1)
            #expect(statistics.decodes == 1)
            #expect(statistics.processorRuns == 3)
            #expect(fixture.pipeline.inFlightTaskCount == 0)
        }
    }

    @Test func aThumbnailDecodeFeedsTheResizeWithoutTheFullImage() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/big.jpg", .image(try TestImages.texture(width: 1200, height: 800, format: .jpeg)))
            let probe = CountingProcessor("test.probe", wrapping: ImageProcessors.Resize(width: 100, height: 100, fit: .fill))
            let request = ImageRequest(
                url: fixture.server.url("/big.jpg"), thumbnail: .init(width: 300, height: 300), processors: [probe])
            let image = try await fixture.pipeline.image(for: request).image
            #expect(image.width == 100 && image.height == 100)
            let input = try #require(probe.inputSizes.first)
            #expect(input.width == 300 && input.height == 200, "the processor got the thumbnail, not 1200x800")
        }
    }

    @Test func processorsEnterTheMemoryKey() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/k.png", .image(try TestImages.texture(width: 40, height: 40, format: .png)))
            let url = fixture.server.url("/k.png")
            let plain = ImageRequest(url: url)
            let blurred = ImageRequest(url: url, processors: [.blur(sigma: 2)])
            let small = ImageRequest(url: url, processors: [.resize(width: 10, height: 10)])
            #expect(try await fixture.pipeline.image(for: plain).image.width == 40)
            #expect(fixture.pipeline.cachedImage(for: blurred) == nil)
            #expect(try await fixture.pipeline.image(for: small).image.width == 10)
            #expect(fixture.pipeline.cachedImage(for: small)?.width == 10)
            #expect(try await fixture.pipeline.image(for: small).source == .memory)
            #expect(fixture.pipeline.cachedImage(for: plain)?.width == 40)
        }
    }

    @Test func aFailingProcessorIsNamedAndDoesNotBlockTheURL() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/f.png", .image(try TestImages.texture(width: 40, height: 40, format: .png)))
            let url = fixture.server.url("/f.png")
            let outside = ImageRequest(url: url, processors: [.crop(x: 30, y: 30, width: 20, height: 20)])
            do throws(MagpieError) {
                _ = try await fixture.pipeline.image(for: outside)
                Issue.record("a crop outside the image must fail")
            } catch {
                guard case .processingFailed(let processor, let reason) = error else {
                    Issue.record("expected processingFailed, got \(error)")
                    return
                }
                #expect(processor == ImageProcessors.Crop(.rectangle(x: 30, y: 30, width: 20, height: 20)).identifier)
                #expect(reason.contains("not inside the 40x40 image"))
                #expect(error.stage == .process)
            }
            #expect(try await fixture.pipeline.image(for: ImageRequest(url: url)).image.width == 40)
            #expect(fixture.pipeline.statistics.failed == 1)
        }
    }

    @Test func previewsPassThroughTheProcessors() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 800, height: 600, format: .jpeg, progressive: true)
            fixture.server.serve("/p.jpg", ServedRoute(body: bytes, contentType: "image/jpeg", bytesPerSecond: bytes.count))
            let request = ImageRequest(
                url: fixture.server.url("/p.jpg"), thumbnail: .init(width: 200, height: 200),
                processors: [.crop(width: 50, height: 40, gravity: .centre)], options: .progressivePreviews)
            let task = fixture.pipeline.imageTask(with: request)
            var previews: [DecodedImage] = []
            for await event in task.events {
                if case .preview(let image) = event { previews.append(image) }
            }
            #expect(!previews.isEmpty)
            for preview in previews { #expect(preview.width == 50 && preview.height == 40) }
            #expect(try await task.image.width == 50)
        }
    }

    @Test func originalBytesComeBackWhenAsked() async throws {
        try await withTestFixture { fixture in
            let bytes = try TestImages.texture(width: 20, height: 20, format: .png)
            fixture.server.serve("/o.png", .image(bytes))
            let url = fixture.server.url("/o.png")
            #expect(try await fixture.pipeline.image(for: ImageRequest(url: url)).container.data == nil)
            let response = try await fixture.pipeline.image(for: ImageRequest(url: url, options: .returnsOriginalData))
            #expect(response.container.data == bytes)
            #expect(response.container.format == .png)
            #expect(response.container.isPreview == false)
        }
    }
}
