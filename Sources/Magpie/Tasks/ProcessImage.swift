import Tracing

/// The third stage, one node per prefix of a request's processors: the node for `[A, B]`
/// waits for the node for `[A]`, which waits for the decode. Requests for `[A, B]` and `[A, C]`
/// on one URL therefore share the download, the decode and the run of `A`. Previews from the
/// node before are processed too, so a preview looks like the final image will.
final class ProcessImage: Sendable {
    private let context: PipelineContext
    private let decode: DecodeImage
    let stage: Stage<ProcessWorkKey, LoadedImage>

    init(context: PipelineContext, decode: DecodeImage) {
        self.context = context
        self.decode = decode
        stage = Stage(.process, context: context)
    }

    /// The work that applies the request's first `count` processors (the decode when 0).
    func task(for input: StageInput, upTo count: Int) -> SharedTask<LoadedImage> {
        guard count > 0 else { return decode.task(for: input) }
        let processor = input.request.processors[count - 1]
        // The identifier is derived only when a tracer records the span.
        let description = Stage<ProcessWorkKey, LoadedImage>.Description(
            start: { ["magpie.processor": .string(processor.identifier)] }, result: LoadedImage.spanAttributes)
        return stage.task(for: input.keys.processWork(upTo: count), describing: description) { [self] shared throws(MagpieError) in
            try await process(input, step: count - 1, shared: shared)
        }.task
    }

    private func process(_ input: StageInput, step: Int, shared: SharedTask<LoadedImage>) async throws(MagpieError) -> LoadedImage {
        let processor = input.request.processors[step]
        // Previews come only from a request that asked for them (see the decode stage).
        let previews = !input.request.options.contains(.progressivePreviews) ? nil : PreviewRelay<ImageContainer>(
            pool: context.decodingPool,
            transform: { container in (try? processor.process(container.image)).map(container.replacingImage) },
            send: { shared.send(.preview($0)) })
        defer { previews?.stop() }
        let before = try await task(for: input, upTo: step).value(relayingTo: shared, passing: [.task, .partialBody]) { event in
            if case .preview(let container) = event { previews?.offer(container) }
        }
        previews?.stop()
        let image = try await context.decodingPool.run { () throws(MagpieError) in
            try processor.run(on: before.container.image)
        }
        return LoadedImage(container: before.container.replacingImage(image), source: before.source, metadata: before.metadata, timings: before.timings)
    }
}
