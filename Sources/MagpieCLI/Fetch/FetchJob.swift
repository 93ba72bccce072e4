import Foundation
import Magpie
import NIOConcurrencyHelpers

/// Loads one URL for `fetch`, writes it out if asked, and says how it went.
struct FetchJob: Sendable {
    let pipeline: ImagePipeline
    /// The command's work, for list entries that give none of their own.
    let work: FetchWork
    /// The format for images written as downloaded (`original`) is PNG for an entry whose own
    /// work changes the pixels.
    let format: OutputFormat
    /// The format was not chosen: an animation is written as WebP, which keeps its frames.
    let animationsAsWebP: Bool
    let options: ImageRequest.Options
    let folder: OutputFolder?
    /// Body bytes received by all jobs so far, for the progress bar.
    let received: NIOLockedValueBox<Int>

    private struct Loaded {
        let image: DecodedImage
        let source: ImageSource
        let bytes: Int
        let original: [UInt8]?
    }

    func run(_ item: FetchItem, name: String) async -> FetchResult {
        let clock = ContinuousClock()
        let start = clock.now
        func elapsed() -> Double { (clock.now - start).milliseconds }
        let text = item.url
        guard let url = URL(string: text) else {
            return .failure(url: text, message: "bad URL: not a URL", milliseconds: 0)
        }
        let work = item.work ?? work
        let request = ImageRequest(url: url, thumbnail: work.thumbnail, processors: work.processors, options: options)
        let format = self.format == .original && work.changesPixels ? .encoded(.png) : self.format
        do {
            let loaded = try await format == .original ? loadOriginal(request) : loadImage(request)
            let milliseconds = elapsed()
            let file = try write(loaded, name: name, format: format)
            return .success(
                url: text, source: loaded.source, width: loaded.image.width, height: loaded.image.height,
                frames: loaded.image.frameCount, format: loaded.image.sourceFormat, bytes: loaded.bytes,
                milliseconds: milliseconds, file: file)
        } catch let error as MagpieError {
            return .failure(url: text, message: FailureMessage.text(for: error), milliseconds: elapsed())
        } catch {
            return .failure(url: text, message: "\(error)", milliseconds: elapsed())
        }
    }

    private func loadImage(_ request: ImageRequest) async throws(MagpieError) -> Loaded {
        let task = pipeline.imageTask(with: request)
        var bodyBytes = 0
        for await event in task.events {
            guard case .progress(let count, _) = event else { continue }
            received.withLockedValue { $0 += count - bodyBytes }
            bodyBytes = count
        }
        let response = try await task.response
        return Loaded(image: response.image, source: response.source, bytes: response.source == .network ? bodyBytes : 0, original: nil)
    }

    /// The downloaded bytes, decoded once here to prove they are an image and to measure it.
    private func loadOriginal(_ request: ImageRequest) async throws(MagpieError) -> Loaded {
        let data = try await pipeline.data(for: request)
        let bytes = data.source == .network ? data.data.count : 0
        received.withLockedValue { $0 += bytes }
        let configuration = pipeline.configuration
        let image = try configuration.decoder.decode(data.data, thumbnail: nil, maximumPixels: configuration.maximumPixels)
        return Loaded(image: image, source: data.source, bytes: bytes, original: data.data)
    }

    private func write(_ loaded: Loaded, name: String, format: OutputFormat) throws -> URL? {
        guard let folder else { return nil }
        if let original = loaded.original {
            return try folder.write(original, name: name, fileExtension: loaded.image.sourceFormat.fileExtension)
        }
        let encoded = loaded.image.isAnimated && animationsAsWebP ? .webp : format.encoded ?? .png
        let bytes = try ImageEncoder(quality: 90).encode(loaded.image, as: encoded)
        return try folder.write(bytes, name: name, fileExtension: encoded.fileExtension)
    }
}
