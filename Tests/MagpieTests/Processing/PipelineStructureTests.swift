import Foundation
import MagpieTesting
import MetricsTestKit
import Testing

@testable import Magpie

@Suite("One source for keys, counts and errors")
struct PipelineStructureTests {
    @Test @MainActor func bindingFindsAProcessedImageInMemory() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/b.png", .image(try TestImages.texture(width: 40, height: 40, format: .png)))
            let url = fixture.server.url("/b.png")
            let processors: [any ImageProcessing] = [.resize(width: 10, height: 10)]
            _ = try await fixture.pipeline.image(for: ImageRequest(url: url, processors: processors))
            let view = RecordingView()
            let task = fixture.pipeline.bind(url, to: view, options: .init(processors: processors))
            #expect(task == nil, "a memory hit needs no task")
            #expect(view.shownWidths == [10])
            let unprocessed = RecordingView()
            #expect(fixture.pipeline.bind(url, to: unprocessed) != nil, "the unprocessed image is another key")
        }
    }

    @Test func thePrefetcherWarmsTheVariantItsLoadsWillAskFor() async throws {
        try await withTestFixture(configure: { $0.diskCachePolicy = .variants }) { fixture in
            let urls = (0..<4).map { index in
                fixture.server.serve("/p\(index).jpg", .image((try? TestImages.texture(width: 320, height: 240)) ?? []))
                return fixture.server.url("/p\(index).jpg")
            }
            let processors: [any ImageProcessing] = [.crop(width: 50, height: 50)]
            let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline, thumbnail: .init(width: 100, height: 100), processors: processors)
            prefetcher.start(urls)
            await prefetcher.wait()
            #expect(prefetcher.progress.completed == 4)
            await fixture.pipeline.dataCache?.flush()
            #expect(await fixture.pipeline.dataCache?.variantCount == 4)
            fixture.pipeline.memoryCache?.removeAll()
            let again = ImagePrefetcher(pipeline: fixture.pipeline, thumbnail: .init(width: 100, height: 100), processors: processors)
            again.start(urls)
            await again.wait()
            #expect(again.progress.skipped == 4, "the variants on disk are recognised as cached")
            let response = try await fixture.pipeline.image(
                for: ImageRequest(url: urls[0], thumbnail: .init(width: 100, height: 100), processors: processors))
            #expect(response.source == .disk && response.image.width == 50)
        }
    }

    @Test func statisticsAndMetricsCountTheSameThings() async throws {
        let metrics = TestMetrics()
        try await withTestFixture(configure: { $0.metricsFactory = metrics }) { fixture in
            for index in 0..<3 { fixture.server.serve("/s\(index).png", .image(try TestImages.texture(width: 16 + index, height: 16, format: .png))) }
            fixture.server.serve("/missing.png", .status(404))
            let pipeline = fixture.pipeline
            for index in 0..<3 { _ = try await pipeline.image(for: fixture.server.url("/s\(index).png")) }
            _ = try await pipeline.image(for: fixture.server.url("/s0.png"))  // memory
            _ = try await pipeline.data(for: ImageRequest(url: fixture.server.url("/s1.png")))  // disk, no event
            _ = try await pipeline.image(for: ImageRequest(url: fixture.server.url("/s2.png"), processors: [.blur(sigma: 1)]))
            _ = try? await pipeline.data(for: ImageRequest(url: fixture.server.url("/missing.png")))
            _ = try? await pipeline.image(for: fixture.server.url("/missing.png"))  // blocked

            let statistics = pipeline.statistics
            func counter(_ label: String, _ dimensions: [(String, String)] = []) throws -> Int {
                Int(try metrics.expectCounter(label, dimensions).totalValue)
            }
            #expect(statistics.requests == 8)
            #expect(try counter("magpie_requests_total") == statistics.requests)
            #expect(try counter("magpie_loads_total", [("source", "memory")]) == statistics.memoryHits)
            #expect(try counter("magpie_loads_total", [("source", "disk")]) == statistics.diskHits)
            #expect(try counter("magpie_loads_total", [("source", "network")]) == statistics.networkLoads)
            #expect(try counter("magpie_failures_total") == statistics.failed)
            #expect(try counter("magpie_downloads_total") == statistics.downloads)
            #expect(try counter("magpie_downloaded_bytes_total") == statistics.bytesDownloaded)
            #expect(try counter("magpie_processor_runs_total") == statistics.processorRuns)
            #expect(try metrics.expectTimer("magpie_decode_duration").values.count == statistics.decodes)
            #expect((statistics.memoryHits, statistics.diskHits, statistics.networkLoads, statistics.failed) == (1, 2, 3, 2))
            #expect(statistics.processorRuns == 1)
        }
    }

    @Test func everyErrorNamesItsStage() throws {
        #expect(MagpieError.httpStatus(404, URL(string: "http://a.test/")!).stage == .fetch)
        #expect(MagpieError.decodingFailed("x").stage == .decode)
        #expect(MagpieError.processingFailed(processor: "p", reason: "r").stage == .process)
        #expect(MagpieError.encodingFailed(format: "png", reason: "r").stage == .encode)
        #expect(MagpieError.blocked(URL(string: "http://a.test/")!).stage == .request)
        let empty = DecodedImage(width: 0, height: 0, pixels: [])
        #expect {
            _ = try ImageEncoder().encode(empty, as: .png)
        } throws: { error in
            guard let error = error as? MagpieError, case .encodingFailed(let format, _) = error else { return false }
            return format == "png" && error.stage == .encode
        }
    }

    @Test func losslessWebPKeepsEveryPixelAndLossyDoesNot() throws {
        let image = TestImages.pixels(width: 64, height: 48, seed: 5)
        let lossless = try ImageEncoder(lossless: true).encode(image, as: .webp)
        let lossy = try ImageEncoder(quality: 50).encode(image, as: .webp)
        #expect(ImageFormat(sniffing: lossless) == .webp)
        #expect(try VipsDecoder().decode(lossless, thumbnail: nil, maximumPixels: .max).pixels == image.pixels)
        #expect(try VipsDecoder().decode(lossy, thumbnail: nil, maximumPixels: .max).pixels != image.pixels)
    }

    @Test func aClosureProcessorsFailureCarriesItsIdentifier() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/c.png", .image(try TestImages.texture(width: 8, height: 8, format: .png)))
            let failing = ImageProcessors.Anonymous(identifier: "app.watermark/2") { _ throws(MagpieError) in
                throw .decodingFailed("the watermark file is missing")
            }
            let request = ImageRequest(url: fixture.server.url("/c.png"), processors: [.resize(width: 4, height: 4), failing])
            await #expect(throws: MagpieError.processingFailed(
                processor: "app.watermark/2", reason: "Decoding failed: the watermark file is missing.")) {
                _ = try await fixture.pipeline.image(for: request)
            }
        }
    }

    @Test func aCompositionIsOneNodeNamedByItsParts() throws {
        let composition = ImageProcessors.Composition([.resize(width: 8, height: 8), .grayscale])
        #expect(composition.identifier == "magpie.composition/1(\(ImageProcessors.Resize(width: 8, height: 8).identifier),magpie.grayscale/1)")
        let image = TestImages.pixels(width: 32, height: 16)
        let output = try composition.process(image)
        #expect(output.width == 8 && output.height == 4)
        let pixel = output.pixel(x: 3, y: 2)
        #expect(pixel.red == pixel.green && pixel.green == pixel.blue)
    }
}
