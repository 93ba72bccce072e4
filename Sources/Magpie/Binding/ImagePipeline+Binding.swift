public import Foundation

extension ImagePipeline {
    /// Shows the image at `url` on `target`, replacing whatever the target was bound to.
    ///
    /// - A memory-cache hit is displayed before this method returns: no placeholder flash.
    /// - Otherwise the placeholder is displayed and the image follows when loaded.
    /// - Binding again (to another URL or to `nil`) cancels the previous request, and no image
    ///   from an earlier bind is ever displayed afterwards, whatever the timing.
    /// - When the target is deallocated, its request is cancelled and no callback runs.
    ///
    /// - Returns: the request started, or `nil` when the image came from memory or `url` is nil.
    ///   The binding consumes the task's ``ImageTask/events``; use `options.progress` and
    ///   `options.completion`, or await ``ImageTask/response``, instead.
    @MainActor
    @discardableResult
    public func bind(_ url: URL?, to target: some ImageDisplaying, options: BindingOptions = .init()) -> ImageTask? {
        let binding = target.imageBinding
        binding.generation &+= 1
        let generation = binding.generation
        let previous = binding.takeTask()
        if !options.keepsPreviousRequestRunning { previous?.cancel() }
        binding.url = url

        guard let url else {
            target.display(options.placeholder)
            return nil
        }
        let request = ImageRequest(
            url: url, thumbnail: options.thumbnail, processors: options.processors, priority: options.priority, options: options.requestOptions)
        if RequestKeys.readsMemory(request), let image = cachedImage(for: request) {
            target.display(image)
            options.completion?(.success(ImageResponse(image: image, request: request, source: .memory)))
            return nil
        }
        target.display(options.placeholder)
        let task = imageTask(with: request)
        binding.setTask(task)
        Task { @MainActor [weak target] in
            for await event in task.events {
                guard let target, target.imageBinding.generation == generation else { break }
                switch event {
                case .progress(let received, let expected): options.progress?(received, expected)
                case .preview(let image): target.display(image)
                case .finished(let result): Self.finish(result, target: target, generation: generation, task: task, options: options)
                default: break
                }
            }
        }
        return task
    }

    @MainActor
    private static func finish(
        _ result: Result<ImageResponse, MagpieError>, target: some ImageDisplaying, generation: UInt64, task: ImageTask,
        options: BindingOptions
    ) {
        let binding = target.imageBinding
        guard binding.generation == generation else { return }
        binding.clearTask(task)
        switch result {
        case .success(let response): target.display(response.image)
        case .failure(.cancelled): break
        case .failure: if let failureImage = options.failureImage { target.display(failureImage) }
        }
        options.completion?(result)
    }
}
