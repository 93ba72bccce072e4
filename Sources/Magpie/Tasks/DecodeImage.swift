import Foundation
import Tracing

/// An image and where the bytes it was made from came from.
struct LoadedImage: StageOutput {
    let container: ImageContainer
    let source: ImageSource
    /// What the server said about the original bytes: their validators, and the redirects they
    /// came through, kept with a variant made from them.
    var metadata: HTTPMetadata?
    /// How long the stages that made it took.
    var timings = StageTimings()
    /// Handed to the stage made already (``StageInput/decoded``): its time was counted there.
    var isFound = false
    /// Decoded from the variant kept on disk by the load stage, whose run then counts as a
    /// decode (the file's read with it).
    var decodedVariant = false

    func fact(of stage: StageName, took own: Duration) -> PipelineRecorder.Fact? {
        decodedVariant && stage == .load ? .decoded(own) : stage.fact(took: own)
    }

    var redirects: [URL] { metadata?.redirects ?? [] }

    /// What a stage's span says of an image it made.
    @Sendable static func spanAttributes(_ loaded: LoadedImage) -> SpanAttributes {
        [
            "magpie.image.width": .int64(Int64(loaded.container.image.width)), "magpie.image.height": .int64(Int64(loaded.container.image.height)),
            "magpie.image.format": .string(loaded.container.format.rawValue), "magpie.answered.from": .string(loaded.source.rawValue),
        ]
    }
}

/// The second stage: decodes the original bytes (downsampling at load time for thumbnails)
/// on the decoding threads, and turns partial bodies into previews while they download.
final class DecodeImage: Sendable {
    let context: PipelineContext
    let fetch: FetchOriginalData
    let stage: Stage<DecodeWorkKey, LoadedImage>
    /// Decodes that encode as they go (`DecodeImage+Encoding`), keyed by the encoding too.
    let encodingStage: Stage<EncodeWorkKey, DecodedForEncoding>

    init(context: PipelineContext, fetch: FetchOriginalData) {
        self.context = context
        self.fetch = fetch
        stage = Stage(.decode, context: context)
        encodingStage = Stage(.decode, context: context)
    }

    func task(for input: StageInput) -> SharedTask<LoadedImage> {
        stage.task(for: input.keys.decodeWork, describing: .init(result: LoadedImage.spanAttributes)) { [self] shared throws(MagpieError) in
            try await decode(input, shared: shared)
        }.task
    }

    private func decode(_ input: StageInput, shared: SharedTask<LoadedImage>) async throws(MagpieError) -> LoadedImage {
        if var decoded = input.decoded {
            decoded.isFound = true
            return decoded
        }
        let decoder = context.configuration.decoder
        let thumbnail = input.request.thumbnail
        let maximumPixels = context.configuration.maximumPixels
        // Only a request that asked for previews is sent partial bodies to make them from.
        let previews = !input.request.options.contains(.progressivePreviews) ? nil : PreviewRelay<[UInt8]>(
            pool: context.decodingPool,
            transform: { bytes in
                decoder.decodePreview(bytes, thumbnail: thumbnail, maximumPixels: maximumPixels)
                    .map { ImageContainer(image: $0, isPreview: true) }
            },
            send: { shared.send(.preview($0)) })
        defer { previews?.stop() }
        let data = try await fetch.task(for: input).value(relayingTo: shared, passing: [.task, .preview]) { event in
            if case .partialBody(let bytes) = event { previews?.offer(bytes) }
        }
        previews?.stop()
        let image: DecodedImage
        do {
            image = try await context.decode(data.bytes, for: input.request, to: input.keys.decodeWork.target, clock: shared.clock)
        } catch {
            await context.forgetUndecodable(error, keys: input.keys)
            throw error
        }
        // The bytes travel with the image (no copy) for requests that asked for them; the
        // last stage drops them for the others.
        return LoadedImage(container: ImageContainer(image: image, data: data.bytes), source: data.source, metadata: data.metadata, timings: data.timings)
    }
}
