public import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Turns URLs into decoded images through a memory cache, a disk cache and the network,
/// doing identical work once however many callers ask.
///
/// ```swift
/// try await withImagePipeline { pipeline in
///     let image = try await pipeline.image(for: url)
///     print(image.width, image.height)
/// }
/// ```
///
/// A pipeline owns an HTTP client and decoding threads: call ``shutdown()`` when done with
/// it, or use ``withImagePipeline(configuration:_:)``.
public final class ImagePipeline: Sendable {
    /// The configuration the pipeline was created with.
    public let configuration: Configuration
    /// Decoded images, read synchronously; `nil` when turned off.
    public let memoryCache: (any ImageCaching)?
    /// Original bytes and encoded variants (on disk by default); `nil` when turned off.
    public let dataCache: (any DataCaching)?

    private let clients: OutboundClients
    let context: PipelineContext
    let fetchStage: FetchOriginalData
    private let decodeStage: DecodeImage
    private let processStage: ProcessImage
    private let loadStage: LoadImage
    let encodeStage: EncodeImage
    private let observers = PipelineObservers()
    private let memoryPressureWatch = NIOLockedValueBox<MemoryPressureWatch?>(nil)
    var recorder: PipelineRecorder { context.recorder }
    /// Set only for tests that check finished work is released.
    var workTracker: WorkTracker? { context.workTracker }
    var scheduler: DownloadScheduler { context.scheduler }
    /// Admits decodes within the configuration's decode memory budget; `magpie proxy` decodes
    /// through it too.
    package var decodeBudget: Admission { context.decodeBudget }

    /// Creates a pipeline. The disk cache directory is opened (and scanned) in the background.
    public init(configuration: Configuration = Configuration()) {
        if configuration.limitsMallocArenas { _ = MallocArenas.limit }
        self.configuration = configuration
        memoryCache = configuration.imageCache ?? configuration.memoryCache.map { ImageCache(limits: $0, now: configuration.clock) }
        let dataCache =
            configuration.dataCache
            ?? configuration.diskCache.map { DataCache(configuration: $0, logger: configuration.logger, now: configuration.wallClock) }
        self.dataCache = dataCache
        let clients = OutboundClients(configuration: configuration)
        self.clients = clients
        let recorder = PipelineRecorder(metricsFactory: configuration.metricsFactory)
        let tiered = configuration.sharedStore.map { settings in
            // The store is the configuration's, not a source: no address policy between.
            TieredStore(
                near: dataCache,
                far: S3DataStore(
                    settings: settings, client: clients.client(for: settings.endpoint.url, trusted: true).client, recorder: recorder,
                    logger: configuration.logger, now: configuration.wallClock, clock: configuration.clock))
        }
        let keeps = configuration.sharedStore?.keeps
        var sourceLoaders: [String: any SourceLoader] = ["http": HTTPLoader(), "https": HTTPLoader(), "data": DataURLLoader()]
        for (scheme, loader) in configuration.sourceLoaders { sourceLoaders[scheme.lowercased()] = loader }
        if configuration.allowsFileURLs, sourceLoaders["file"] == nil { sourceLoaders["file"] = FileSystemLoader() }
        context = PipelineContext(
            configuration: configuration,
            memory: memoryCache.map(PipelineMemory.init),
            encodedCache: configuration.encodedMemoryCacheLimit.flatMap { $0 > 0 ? EncodedImageCache(limit: $0, clock: configuration.clock) : nil },
            originals: keeps?.keepsOriginals == true ? tiered : dataCache,
            variants: keeps?.keepsVariants == true ? tiered : dataCache,
            loader: DataLoader(
                clients: clients,
                limits: .init(
                    maximumResponseBytes: configuration.maximumResponseBytes,
                    maximumRedirects: configuration.maximumRedirects,
                    idleTimeout: configuration.idleTimeout,
                    totalTimeout: configuration.totalTimeout,
                    connectTimeout: configuration.connectTimeout,
                    allowedSchemes: ["http", "https"]),
                partials: configuration.resumableDownloads.map { PartialBodies(limits: $0, now: configuration.clock) },
                logger: configuration.logger),
            sourceLoaders: sourceLoaders,
            scheduler: DownloadScheduler(
                maximumConcurrent: configuration.maximumConcurrentDownloads,
                order: configuration.downloadOrder == .fifo ? .fifo : .lifo),
            decodingPool: DecodingPool(threadCount: configuration.decodingThreads),
            decodeBudget: Admission(memoryBudget: configuration.decodeMemoryBudget),
            blocklist: configuration.failedURLBlockDuration > .zero
                ? FailedURLBlocklist(duration: configuration.failedURLBlockDuration, now: configuration.clock) : nil,
            recorder: recorder,
            workTracker: configuration.tracksWork ? WorkTracker() : nil)
        fetchStage = FetchOriginalData(context: context)
        decodeStage = DecodeImage(context: context, fetch: fetchStage)
        processStage = ProcessImage(context: context, decode: decodeStage)
        loadStage = LoadImage(context: context, process: processStage)
        encodeStage = EncodeImage(context: context, process: processStage, decode: decodeStage)
        let watch = startWatchingMemoryPressure()
        memoryPressureWatch.withLockedValue { $0 = watch }
    }

    /// Stops the HTTP client and decoding threads after waiting for pending disk writes.
    /// Loads started afterwards fail.
    public func shutdown() async {
        memoryPressureWatch.withLockedValue { $0 }?.cancel()
        await flushStores()
        await clients.shutdown()
        await context.decodingPool.shutdown()
    }

    /// Waits until every write handed to the stores so far is done: the disk cache's files,
    /// and the shared store's uploads (``Configuration/sharedStore``).
    public func flushStores() async {
        await context.originals?.flush()
        await context.variants?.flush()
    }

    // MARK: - Loading

    /// Loads the image at `url`.
    public func image(for url: URL) async throws(MagpieError) -> DecodedImage {
        try await image(for: ImageRequest(url: url)).image
    }

    /// Loads the image a request describes. Cancelling the calling task cancels the load.
    public func image(for request: ImageRequest) async throws(MagpieError) -> ImageResponse {
        // A memory hit needs no task, no event stream and no suspension; a miss is not read again.
        var missed: PipelineMemory.Miss?
        if RequestKeys.readsMemory(request), let memory = context.memory {
            switch memory.image(for: RequestKeys.memoryKey(for: request, cacheKey: configuration.cacheKey)) {
            case .hit(let image):
                recorder.record(.finished(.memory))
                emit(.finished(task: scheduler.arrival(), url: request.url, bytes: 0, duration: .zero, source: .memory))
                return ImageResponse(image: image, request: request, source: .memory)
            case .miss(let miss):
                missed = miss
            }
        }
        return try await startTask(with: request, missedMemory: missed).response
    }

    /// Starts loading and returns a handle to cancel it, change its priority, follow its
    /// events and await its result.
    public func imageTask(with request: ImageRequest) -> ImageTask {
        startTask(with: request, missedMemory: nil)
    }

    /// A task for `request`; `missedMemory` when the memory cache was read for it just now.
    private func startTask(with request: ImageRequest, missedMemory: PipelineMemory.Miss?) -> ImageTask {
        let started = ContinuousClock.now
        let received = NIOLockedValueBox(0)
        let task = ImageTask(request: request, arrival: scheduler.arrival()) { [weak self] task, event in
            guard let self, let event = self.pipelineEvent(for: event, of: task, started: started, received: received) else { return }
            self.emit(event)
        }
        workTracker?.track(task)
        task.start { [self] task throws(MagpieError) in try await self.load(task, missedMemory: missedMemory) }
        return task
    }

    /// Starts loading and calls `completion` once with the result, for code outside async
    /// functions. The returned task can cancel the load.
    ///
    /// `completion` runs in the isolation it was written in: on the main actor when written in
    /// `@MainActor` code, on an actor when it uses the actor's state, and on any thread otherwise.
    @discardableResult
    public func loadImage(
        with request: ImageRequest,
        // As `Task.init`'s operation: a closure written in isolated code keeps that isolation
        // (without the attribute, `@isolated(any)` closures are nonisolated unless marked).
        @_inheritActorContext completion: @escaping @isolated(any) @Sendable (Result<ImageResponse, MagpieError>) -> Void
    ) -> ImageTask {
        let task = imageTask(with: request)
        Task {
            do throws(MagpieError) {
                await completion(.success(try await task.response))
            } catch {
                await completion(.failure(error))
            }
        }
        return task
    }

    /// Loads the original bytes without decoding them, through the disk cache.
    public func data(for request: ImageRequest) async throws(MagpieError) -> DataResponse {
        do {
            let input = StageInput(request: request, keys: RequestKeys(request, configuration: configuration), arrival: scheduler.arrival())
            try context.validate(input)
            let loaded = try await fetchStage.task(for: input).value(priority: request.priority)
            recorder.record(.finished(loaded.source))
            return DataResponse(
                data: loaded.bytes, contentType: loaded.contentType, source: loaded.source, metadata: loaded.metadata, timings: loaded.timings)
        } catch {
            recorder.record(error == .cancelled ? .cancelled : .failed)
            throw error
        }
    }

    /// The image in the memory cache for `request`, without waiting and without I/O. Whether
    /// a load would use it also depends on the request's options (``ImageRequest/Options/refreshCached``...).
    public func cachedImage(for request: ImageRequest) -> DecodedImage? {
        guard let memoryCache else { return nil }
        return memoryCache[RequestKeys.memoryKey(for: request, cacheKey: configuration.cacheKey)]
    }

    /// Calls `handler` with every ``PipelineEvent`` until the returned observation is cancelled
    /// or released. The handler runs on the thread that produced the event: keep it short.
    public func addObserver(_ handler: @escaping @Sendable (PipelineEvent) -> Void) -> PipelineObservation {
        observers.add(handler)
    }

    /// Every ``PipelineEvent`` from now on, until the consumer stops iterating.
    public func events() -> AsyncStream<PipelineEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PipelineEvent.self)
        let observation = observers.add { continuation.yield($0) }
        continuation.onTermination = { _ in observation.cancel() }
        return stream
    }

    /// Counts of what the pipeline has done.
    public var statistics: PipelineStatistics { recorder.snapshot }

    /// Shared fetch and decode tasks still running; zero when the pipeline is idle.
    public var inFlightTaskCount: Int {
        fetchStage.stage.inFlightCount + decodeStage.stage.inFlightCount + decodeStage.encodingStage.inFlightCount + processStage.stage.inFlightCount
            + loadStage.stage.inFlightCount + encodeStage.stage.inFlightCount
    }

    /// Downloads running now and downloads waiting for a slot.
    public var downloadQueue: (running: Int, waiting: Int) { scheduler.counts }

    /// Forgets that URLs failed, so they are tried again.
    public func clearFailedURLs() {
        context.blocklist?.removeAll()
    }

    // MARK: - Events

    private func emit(_ event: PipelineEvent) {
        if case .failed(_, let url, let error) = event {
            configuration.logger.debug("image load failed", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
        }
        observers.send(event)
    }

    private func pipelineEvent(
        for event: ImageTask.Event, of task: ImageTask, started: ContinuousClock.Instant, received: NIOLockedValueBox<Int>
    ) -> PipelineEvent? {
        let url = task.request.url
        switch event {
        case .started: return .started(task: task.id, url: url)
        case .response(let status, let headers): return .response(task: task.id, url: url, status: status, headers: headers)
        case .progress(let count, let expected):
            received.withLockedValue { $0 = count }
            return .progress(task: task.id, url: url, received: count, expected: expected)
        case .preview: return nil
        case .finished(.success(let response)):
            recorder.record(.finished(response.source))
            let bytes = response.source == .network ? received.withLockedValue { $0 } : 0
            return .finished(task: task.id, url: url, bytes: bytes, duration: ContinuousClock.now - started, source: response.source)
        case .finished(.failure(.cancelled)):
            recorder.record(.cancelled)
            return .cancelled(task: task.id, url: url)
        case .finished(.failure(let error)):
            recorder.record(.failed)
            return .failed(task: task.id, url: url, error: error)
        }
    }

    // MARK: - Wiring

    private func load(_ task: ImageTask, missedMemory: PipelineMemory.Miss?) async throws(MagpieError) -> ImageResponse {
        let request = task.request
        let keys = RequestKeys(request, configuration: configuration)
        var missedMemory = missedMemory
        if missedMemory == nil, RequestKeys.readsMemory(request), let memory = context.memory, let key = keys.image {
            switch memory.image(for: key) {
            case .hit(let image): return ImageResponse(image: image, request: request, source: .memory)
            case .miss(let miss): missedMemory = miss
            }
        }
        let input = StageInput(request: request, keys: keys, arrival: task.arrival, missedMemory: missedMemory)
        try context.validate(input)
        // The stages hold the input, never the task: a task is the work's subscriber, not its owner.
        let loaded = try await loadStage.task(for: input).value(
            for: task,
            listener: .handler { event in
                switch event {
                case .task(let event): task.send(event)
                case .preview(let container): task.send(.preview(container.image))
                case .partialBody: break
                }
            })
        return ImageResponse(container: loaded.container, request: request, source: loaded.source)
    }
}

/// Runs `body` with a new pipeline and shuts the pipeline down afterwards, even if `body`
/// throws.
///
/// `body` runs in the caller's isolation, as the standard library's `withTaskGroup` does: from
/// `@MainActor` code, an actor's method or a `@main` entry point it may use that isolation's
/// state directly.
public func withImagePipeline<Result>(
    isolation: isolated (any Actor)? = #isolation,
    configuration: ImagePipeline.Configuration = .init(),
    _ body: (ImagePipeline) async throws -> Result
) async rethrows -> Result {
    let pipeline = ImagePipeline(configuration: configuration)
    do {
        let result = try await body(pipeline)
        await pipeline.shutdown()
        return result
    } catch {
        await pipeline.shutdown()
        throw error
    }
}
