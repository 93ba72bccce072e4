import Foundation

/// Original bytes and where they came from.
struct LoadedData: Sendable {
    let bytes: [UInt8]
    let metadata: HTTPMetadata?
    let source: ImageSource

    var contentType: String? { metadata?.contentType }
}

/// The first stage: gets a request's original bytes from the disk cache, or waits for a
/// download slot and loads them (revalidating cached bytes when asked), then stores them.
/// Shared by every request for the same bytes, whatever they do with them afterwards.
final class FetchOriginalData: Sendable {
    private let context: PipelineContext
    private let pool: TaskPool<DataWorkKey, LoadedData>

    init(context: PipelineContext) {
        self.context = context
        pool = TaskPool(tracker: context.workTracker)
    }

    var inFlightCount: Int { pool.count }

    func task(for input: StageInput) -> SharedTask<LoadedData> {
        context.task(in: pool, for: input.keys.dataWork) { [self] shared throws(MagpieError) in
            try await fetch(input, shared: shared)
        }
    }

    private func fetch(_ input: StageInput, shared: SharedTask<LoadedData>) async throws(MagpieError) -> LoadedData {
        let request = input.request
        let configuration = context.configuration
        if let scheme = request.url.scheme?.lowercased(), let loader = context.sourceLoaders[scheme] {
            let found = try await loader.load(request.url, limit: configuration.maximumResponseBytes)
            guard found.bytes.count <= configuration.maximumResponseBytes else { throw .responseTooLarge(limit: configuration.maximumResponseBytes) }
            return LoadedData(bytes: found.bytes, metadata: found.metadata, source: loader is FileSystemLoader ? .disk : .network)
        }
        var cached: CachedData?
        if let dataCache = context.dataCache, !request.options.contains(.networkOnly) {
            cached = await dataCache.entry(for: input.keys.data)
        }
        // A refresh always asks the server: conditionally when the entry has a validator,
        // otherwise by downloading again.
        if let cached, !request.options.contains(.refreshCached) {
            try input.keys.sources.check(redirects: cached.metadata.redirects, of: request.url)
            return LoadedData(bytes: cached.data, metadata: cached.metadata, source: .disk)
        }
        if request.options.contains(.cacheOnly) { throw .notCached }

        let scheduler = context.scheduler
        let ticket = scheduler.makeTicket(priority: shared.priority, arrival: input.arrival)
        shared.onPriorityChange { scheduler.setPriority($0, for: ticket) }
        do {
            try await scheduler.acquire(ticket)
        } catch {
            throw .cancelled
        }
        defer { scheduler.release() }
        if Task.isCancelled { throw .cancelled }

        shared.send(.task(.started))
        context.recorder.record(.downloadStarted)
        return try await download(input, revalidating: cached, shared: shared)
    }

    private func download(_ input: StageInput, revalidating cached: CachedData?, shared: SharedTask<LoadedData>) async throws(MagpieError) -> LoadedData {
        let request = input.request
        let dataKey = input.keys.data
        let blocklist = context.blocklist
        var outgoing = OutgoingRequest(url: request.url, headers: request.headers)
        if let modifier = context.configuration.requestModifier {
            do {
                try await modifier(&outgoing)
            } catch {
                throw .network(NetworkFailure(.other, "the request modifier failed: \(error)"))
            }
        }
        let outcome: DataLoader.Outcome
        do {
            outcome = try await context.loader.load(
                outgoing, sources: input.keys.sources, revalidating: cached?.metadata.canRevalidate == true ? cached?.metadata : nil,
                resumeKey: dataKey,
                partialBodies: request.options.contains(.progressivePreviews), now: context.configuration.wallClock,
                onRetryAfter: { wait in blocklist.block(dataKey, for: wait) },
                onEvent: { shared.send($0) })
        } catch {
            blocklist.record(error, for: dataKey)
            throw error
        }
        switch outcome {
        case .notModified(let fresh):
            guard var entry = cached else { throw .httpStatus(304, request.url) }
            context.recorder.record(.revalidated)
            entry.metadata.freshUntil = fresh.freshUntil
            entry.metadata.cacheControl = fresh.cacheControl
            if let etag = fresh.etag { entry.metadata.etag = etag }
            if let lastModified = fresh.lastModified { entry.metadata.lastModified = lastModified }
            entry.metadata.redirects = fresh.redirects
            context.dataCache?.store(entry)
            return LoadedData(bytes: entry.data, metadata: entry.metadata, source: .network)
        case .downloaded(let bytes, let metadata, let resumedFrom):
            context.recorder.record(.downloaded(bytes: bytes.count - resumedFrom))
            if resumedFrom > 0 { context.recorder.record(.resumed) }
            if let dataCache = context.dataCache {
                // New bytes make every variant made from the old ones stale. A network-only
                // load did not read the entry it replaces, so it retires them too.
                if cached != nil || request.options.contains(.networkOnly) { dataCache.removeVariants(of: dataKey) }
                // Only bytes that look like an image are kept: an HTML error page served with
                // status 200 must not be cached.
                if input.keys.keepsOriginal, ImageFormat(sniffing: bytes) != .unknown {
                    dataCache.store(CachedData(key: dataKey, data: bytes, metadata: metadata))
                }
            }
            return LoadedData(bytes: bytes, metadata: metadata, source: .network)
        }
    }
}
