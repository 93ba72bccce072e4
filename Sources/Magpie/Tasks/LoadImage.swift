import Foundation
import Logging
import Tracing

/// The last stage: answers from the memory cache or the request's encoded variant on disk,
/// otherwise waits for the processors (or the decode), then stores the result in memory and,
/// when the disk cache policy says so, as an encoded variant on disk.
final class LoadImage: Sendable {
    private let context: PipelineContext
    private let process: ProcessImage
    let stage: Stage<ImageWorkKey, LoadedImage>

    init(context: PipelineContext, process: ProcessImage) {
        self.context = context
        self.process = process
        stage = Stage(.load, context: context)
    }

    func task(for input: StageInput) -> SharedTask<LoadedImage> {
        stage.task(for: input.keys.imageWork, describing: .init(result: LoadedImage.spanAttributes)) { [self] shared throws(MagpieError) in
            try await load(input, shared: shared)
        }.task
    }

    private func load(_ input: StageInput, shared: SharedTask<LoadedImage>) async throws(MagpieError) -> LoadedImage {
        let request = input.request
        let keys = input.keys
        // The memory cache and the image's key in it (a pipeline without one derives none). A
        // request that missed it just before an identical one finished and left the pool finds
        // the image here instead of making it again.
        let memory = keys.image.flatMap { key in context.memory.map { (cache: $0, key: key) } }
        if RequestKeys.readsMemory(request), let memory, memory.cache.mayHoldMore(than: input.missedMemory),
            case .hit(let image) = memory.cache.image(for: memory.key)
        {
            return LoadedImage(container: ImageContainer(image: image), source: .memory)
        }
        if let variant = await storedVariant(input, clock: shared.clock) {
            if let memory { memory.cache.store(variant.image, for: memory.key) }
            return LoadedImage(container: variant, source: .disk, decodedVariant: true)
        }
        let made = try await process.task(for: input, upTo: request.processors.count).value(relayingTo: shared, passing: [.task, .preview])
        if let memory { memory.cache.store(made.container.image, for: memory.key) }
        if keys.keepsVariant { await storeVariant(made.container.image, redirects: made.redirects, input: input) }
        var container = made.container
        if !request.options.contains(.returnsOriginalData) { container.data = nil }
        return LoadedImage(container: container, source: made.source)
    }

    // MARK: - Variants on disk

    private func storedVariant(_ input: StageInput, clock: StageClock) async -> ImageContainer? {
        guard input.keys.keepsVariant, RequestKeys.readsDisk(input.request), !input.request.options.contains(.returnsOriginalData),
            let variant = input.keys.variant, let variants = context.variants,
            let entry = await context.storedVariant(for: input.keys.data, variant: variant)
        else { return nil }
        // Made from bytes that came through a host these rules refuse: the fetch says so.
        if (try? input.keys.sources.check(redirects: entry.metadata.redirects, of: input.request.url)) == nil { return nil }
        do {
            // The variant is the finished image: decoded whole, with no resize to follow.
            let image = try await context.decode(entry.data, for: input.request, to: .whole, clock: clock)
            return ImageContainer(image: image)
        } catch {
            // A variant that does not decode is made again from the original; one whose decode
            // was cancelled (the pipeline shutting down) is kept.
            if error != .cancelled { await variants.removeVariant(for: input.keys.data, variant: variant) }
            return nil
        }
    }

    private func storeVariant(_ image: DecodedImage, redirects: [URL], input: StageInput) async {
        guard let variant = input.keys.variant, let variants = context.variants else { return }
        do {
            let encoded = try await context.decodingPool.run { () throws(MagpieError) in try VariantEncoding.encode(image) }
            variants.storeVariant(encoded, for: input.keys.data, variant: variant, metadata: HTTPMetadata(redirects: redirects))
            context.recorder.record(.variantStored)
        } catch {
            context.configuration.logger.warning(
                "cannot store a processed variant", metadata: ["url": "\(input.request.url.absoluteString)", "error": "\(error)"])
        }
    }
}
