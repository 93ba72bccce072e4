public import Foundation
import Dispatch
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
    public let memoryCache: ImageCache?
    /// Original bytes on disk; `nil` when turned off.
    public let dataCache: DataCache?

    private let clients: OutboundClients
    private let loader: DataLoader
    private let scheduler: DownloadScheduler
    private let decodingPool: DecodingPool
    private let blocklist: FailedURLBlocklist
    let recorder = StatisticsRecorder()
    private let observers = PipelineObservers()
    let metrics: PipelineMetrics
    private let dataTasks: TaskPool<DataWorkKey, LoadedData>
    private let imageTasks: TaskPool<ImageWorkKey, LoadedImage>
    /// Set only for tests that check finished work is released.
    let workTracker: WorkTracker?
    private let memoryPressureWatch = NIOLockedValueBox<MemoryPressureWatch?>(nil)

    /// Creates a pipeline. The disk cache directory is opened (and scanned) in the background.
    public init(configuration: Configuration = Configuration()) {
        if configuration.limitsMallocArenas { _ = MallocArenas.limit }
        self.configuration = configuration
        memoryCache = configuration.memoryCache.map { ImageCache(limits: $0, now: configuration.clock) }
        dataCache = configuration.diskCache.map {
            DataCache(configuration: $0, logger: configuration.logger, now: configuration.wallClock)
        }
        clients = OutboundClients(configuration: configuration)
        var schemes: Set = ["http", "https"]
        if configuration.allowsFileURLs { schemes.insert("file") }
        loader = DataLoader(
            clients: clients,
            limits: .init(
                maximumResponseBytes: configuration.maximumResponseBytes,
                maximumRedirects: configuration.maximumRedirects,
                idleTimeout: configuration.idleTimeout,
                totalTimeout: configuration.totalTimeout,
                connectTimeout: configuration.connectTimeout,
                allowedSchemes: schemes.subtracting(["file"])),
            logger: configuration.logger)
        scheduler = DownloadScheduler(
            maximumConcurrent: configuration.maximumConcurrentDownloads,
            order: configuration.downloadOrder == .fifo ? .fifo : .lifo)
        decodingPool = DecodingPool(threadCount: configuration.decodingThreads)
        blocklist = FailedURLBlocklist(duration: configuration.failedURLBlockDuration, now: configuration.clock)
        metrics = PipelineMetrics(factory: configuration.metricsFactory)
        workTracker = configuration.tracksWork ? WorkTracker() : nil
        dataTasks = TaskPool(tracker: workTracker)
        imageTasks = TaskPool(tracker: workTracker)
        let watch = startWatchingMemoryPressure()
        memoryPressureWatch.withLockedValue { $0 = watch }
    }

    /// Stops the HTTP client and decoding threads after waiting for pending disk writes.
    /// Loads started afterwards fail.
    public func shutdown() async {
        memoryPressureWatch.withLockedValue { $0 }?.cancel()
        await dataCache?.flush()
        await clients.shutdown()
        await decodingPool.shutdown()
    }

    // MARK: - Loading

    /// Loads the image at `url`.
    public func image(for url: URL) async throws(MagpieError) -> DecodedImage {
        try await image(for: ImageRequest(url: url)).image
    }

    /// Loads the image a request describes. Cancelling the calling task cancels the load.
    public func image(for request: ImageRequest) async throws(MagpieError) -> ImageResponse {
        // A memory hit needs no task, no event stream and no suspension.
        if readsMemory(request), let image = cachedImage(for: request) {
            recorder.record { statistics in
                statistics.requests += 1
                statistics.memoryHits += 1
            }
            emit(.finished(task: scheduler.arrival(), url: request.url, bytes: 0, duration: .zero, source: .memory))
            return ImageResponse(image: image, request: request, source: .memory)
        }
        return try await imageTask(with: request).response
    }

    /// Starts loading and returns a handle to cancel it, change its priority, follow its
    /// events and await its result.
    public func imageTask(with request: ImageRequest) -> ImageTask {
        let started = ContinuousClock.now
        let received = NIOLockedValueBox(0)
        let task = ImageTask(request: request, arrival: scheduler.arrival()) { [weak self] task, event in
            guard let self, let event = self.pipelineEvent(for: event, of: task, started: started, received: received) else { return }
            self.emit(event)
        }
        workTracker?.track(task)
        task.start { [self] task throws(MagpieError) in
            try await self.counted { () throws(MagpieError) in try await self.load(task) }
        }
        return task
    }

    /// Starts loading and calls `completion` once with the result, for code outside async
    /// functions. The returned task can cancel the load.
    @discardableResult
    public func loadImage(
        with request: ImageRequest,
        completion: @escaping @Sendable (Result<ImageResponse, MagpieError>) -> Void
    ) -> ImageTask {
        let task = imageTask(with: request)
        Task {
            do throws(MagpieError) {
                completion(.success(try await task.response))
            } catch {
                completion(.failure(error))
            }
        }
        return task
    }

    /// Loads the original bytes without decoding them, through the disk cache.
    public func data(for request: ImageRequest) async throws(MagpieError) -> DataResponse {
        try await counted { () throws(MagpieError) in
            let keys = RequestKeys(request, cacheKey: configuration.cacheKey)
            try validate(request, keys: keys)
            let loaded = try await sharedData(for: request, keys: keys, arrival: scheduler.arrival())
                .value(priority: request.priority)
            return DataResponse(data: loaded.bytes, contentType: loaded.contentType, source: loaded.source)
        }
    }

    /// The image in the memory cache for `request`, without waiting and without I/O.
    public func cachedImage(for request: ImageRequest) -> DecodedImage? {
        memoryCache?[ImageCacheKey(dataKey: configuration.cacheKey(request.url), thumbnail: request.thumbnail)]
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
    public var inFlightTaskCount: Int { dataTasks.count + imageTasks.count }

    /// Downloads running now and downloads waiting for a slot.
    public var downloadQueue: (running: Int, waiting: Int) { scheduler.counts }

    /// Forgets that URLs failed, so they are tried again.
    public func clearFailedURLs() {
        blocklist.removeAll()
    }

    // MARK: - Events

    private func recordCoalesced() {
        recorder.record { $0.coalesced += 1 }
        metrics.recordCoalesced()
    }

    private func emit(_ event: PipelineEvent) {
        metrics.record(event)
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
            let bytes = response.source == .network ? received.withLockedValue { $0 } : 0
            return .finished(task: task.id, url: url, bytes: bytes, duration: ContinuousClock.now - started, source: response.source)
        case .finished(.failure(.cancelled)): return .cancelled(task: task.id, url: url)
        case .finished(.failure(let error)): return .failed(task: task.id, url: url, error: error)
        }
    }

    // MARK: - Stages

    private func counted<T>(_ work: () async throws(MagpieError) -> T) async throws(MagpieError) -> T {
        recorder.record { $0.requests += 1 }
        do {
            return try await work()
        } catch {
            recorder.record { statistics in
                if error == .cancelled { statistics.cancelled += 1 } else { statistics.failed += 1 }
            }
            throw error
        }
    }

    private func load(_ task: ImageTask) async throws(MagpieError) -> ImageResponse {
        let request = task.request
        let keys = RequestKeys(request, cacheKey: configuration.cacheKey)
        if readsMemory(request), let image = memoryCache?[keys.image] {
            recorder.record { $0.memoryHits += 1 }
            return ImageResponse(image: image, request: request, source: .memory)
        }
        try validate(request, keys: keys)
        // The shared work must not capture the task: a task is the work's subscriber, not its owner.
        let arrival = task.arrival
        let (shared, joined) = imageTasks.task(for: keys.imageWork) { [self] shared throws(MagpieError) in
            try await decode(request, keys: keys, arrival: arrival, shared: shared)
        }
        if joined { recordCoalesced() }
        let loaded = try await shared.value(
            priority: task.priority,
            registered: { subscription in task.attach { subscription.setPriority($0) } },
            onEvent: { event in
                if case .task(let event) = event { task.send(event) }
            })
        return ImageResponse(image: loaded.image, request: request, source: loaded.source)
    }

    private func validate(_ request: ImageRequest, keys: RequestKeys) throws(MagpieError) {
        let url = request.url
        let scheme = url.scheme?.lowercased() ?? ""
        if scheme == "file" {
            guard configuration.allowsFileURLs else {
                throw .invalidURL(url.absoluteString, reason: "file URLs are not allowed by the configuration")
            }
        } else {
            guard scheme == "http" || scheme == "https" else {
                throw .invalidURL(url.absoluteString, reason: "the scheme \(scheme.isEmpty ? "(none)" : scheme) is not allowed")
            }
            guard let host = url.host, !host.isEmpty else { throw .invalidURL(url.absoluteString, reason: "it has no host") }
        }
        if !request.options.contains(.retryFailed), blocklist.contains(keys.data) {
            throw .blocked(url)
        }
    }

    private func readsMemory(_ request: ImageRequest) -> Bool {
        request.options.isDisjoint(with: [.networkOnly, .refreshCached])
    }

    /// Decodes the request's bytes; shared by every request for the same variant.
    private func decode(
        _ request: ImageRequest, keys: RequestKeys, arrival: UInt64, shared: SharedTask<LoadedImage>
    ) async throws(MagpieError) -> LoadedImage {
        // A request that missed the memory cache just before an identical one finished and
        // left the pool finds the image here instead of decoding it again.
        if readsMemory(request), let image = memoryCache?[keys.image] {
            return LoadedImage(image: image, source: .memory)
        }
        let decoder = configuration.decoder
        let thumbnail = request.thumbnail
        let maximumPixels = configuration.maximumPixels
        let previews = PreviewSender(shared: shared, pool: decodingPool) { bytes in
            decoder.decodePreview(bytes, thumbnail: thumbnail, maximumPixels: maximumPixels)
        }
        let data: LoadedData
        do {
            data = try await sharedData(for: request, keys: keys, arrival: arrival).value(
                priority: shared.priority,
                registered: { subscription in shared.onPriorityChange { subscription.setPriority($0) } },
                onEvent: { event in
                    switch event {
                    case .task: shared.send(event)
                    case .partialBody(let bytes): previews.offer(bytes)
                    }
                })
        } catch {
            previews.stop()
            throw error
        }
        previews.stop()
        let image: DecodedImage
        let decodeStart = ContinuousClock.now
        defer { metrics.recordDecode(ContinuousClock.now - decodeStart) }
        do {
            image = try await decodingPool.run { () throws(MagpieError) in
                try decoder.decode(data.bytes, thumbnail: thumbnail, maximumPixels: maximumPixels)
            }
        } catch {
            blocklist.record(error, for: keys.data)
            // Bytes that do not decode would fail again on every later load: do not keep them.
            if data.source != .memory, let dataCache { await dataCache.removeEntry(for: keys.data) }
            throw error
        }
        recorder.record { $0.decodes += 1 }
        memoryCache?.store(image, for: keys.image)
        return LoadedImage(image: image, source: data.source)
    }

    /// `arrival` is the request's place in the download queue's FIFO/LIFO order.
    private func sharedData(for request: ImageRequest, keys: RequestKeys, arrival: UInt64) -> SharedTask<LoadedData> {
        let (shared, joined) = dataTasks.task(for: keys.dataWork) { [self] shared throws(MagpieError) in
            try await fetch(request, keys: keys, arrival: arrival, shared: shared)
        }
        if joined { recordCoalesced() }
        return shared
    }

    /// Gets the original bytes from the disk cache or the network; shared by every request
    /// for the same bytes, whatever their thumbnail size.
    private func fetch(_ request: ImageRequest, keys: RequestKeys, arrival: UInt64, shared: SharedTask<LoadedData>) async throws(MagpieError) -> LoadedData {
        if request.url.isFileURL { return try await readFile(request.url) }
        var cached: CachedData?
        if let dataCache, !request.options.contains(.networkOnly) {
            cached = await dataCache.entry(for: keys.data)
        }
        if let cached, !(request.options.contains(.refreshCached) && cached.metadata.canRevalidate) {
            recorder.record { $0.diskHits += 1 }
            return LoadedData(bytes: cached.data, contentType: cached.metadata.contentType, source: .disk)
        }
        if request.options.contains(.cacheOnly) { throw .notCached }

        let ticket = scheduler.makeTicket(priority: shared.priority, arrival: arrival)
        shared.onPriorityChange { [scheduler] in scheduler.setPriority($0, for: ticket) }
        do {
            try await scheduler.acquire(ticket)
        } catch {
            throw .cancelled
        }
        defer { scheduler.release() }
        if Task.isCancelled { throw .cancelled }

        shared.send(.task(.started))
        recorder.record { $0.downloads += 1 }
        var outgoing = OutgoingRequest(url: request.url, headers: request.headers)
        if let modifier = configuration.requestModifier {
            do {
                try await modifier(&outgoing)
            } catch {
                throw .network(NetworkFailure(.other, "the request modifier failed: \(error)"))
            }
        }
        let outcome: DataLoader.Outcome
        do {
            outcome = try await loader.load(
                outgoing, revalidating: cached?.metadata,
                partialBodies: request.options.contains(.progressivePreviews), now: configuration.wallClock,
                onRetryAfter: { [blocklist] wait in blocklist.block(keys.data, for: wait) },
                onEvent: { shared.send($0) })
        } catch {
            blocklist.record(error, for: keys.data)
            throw error
        }
        switch outcome {
        case .notModified(let fresh):
            guard var entry = cached else { throw .httpStatus(304, request.url) }
            recorder.record { $0.revalidated += 1 }
            entry.metadata.freshUntil = fresh.freshUntil
            if let etag = fresh.etag { entry.metadata.etag = etag }
            if let lastModified = fresh.lastModified { entry.metadata.lastModified = lastModified }
            dataCache?.store(entry)
            return LoadedData(bytes: entry.data, contentType: entry.metadata.contentType, source: .network)
        case .downloaded(let bytes, let metadata):
            recorder.record { $0.bytesDownloaded += bytes.count }
            // Only bytes that look like an image are kept: an HTML error page served with
            // status 200 must not be cached.
            if !request.options.contains(.memoryCacheOnly), ImageFormat(sniffing: bytes) != .unknown {
                dataCache?.store(CachedData(key: keys.data, data: bytes, metadata: metadata))
            }
            return LoadedData(bytes: bytes, contentType: metadata.contentType, source: .network)
        }
    }

    /// Reads a `file:` URL on a dispatch queue, keeping blocking I/O off Swift's thread pool.
    private func readFile(_ url: URL) async throws(MagpieError) -> LoadedData {
        let limit = configuration.maximumResponseBytes
        let result = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(MagpieError) in try Self.readFile(url, limit: limit) })
            }
        }
        return try result.get()
    }

    private static func readFile(_ url: URL, limit: Int) throws(MagpieError) -> LoadedData {
        let path = url.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? Int
        else { throw .network(NetworkFailure(.other, "cannot read \(path)")) }
        guard size <= limit else { throw .responseTooLarge(limit: limit) }
        guard let data = FileManager.default.contents(atPath: path) else { throw .network(NetworkFailure(.other, "cannot read \(path)")) }
        return LoadedData(bytes: Array(data), contentType: nil, source: .disk)
    }
}

/// Runs `body` with a new pipeline and shuts the pipeline down afterwards, even if `body`
/// throws.
public func withImagePipeline<Result: Sendable>(
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
