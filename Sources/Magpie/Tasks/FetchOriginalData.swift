import Foundation
import Tracing

/// Original bytes and where they came from.
struct LoadedData: StageOutput {
    let bytes: [UInt8]
    let metadata: HTTPMetadata?
    let source: ImageSource
    var timings = StageTimings()
    let isFound = false

    var contentType: String? { metadata?.contentType }
}

/// The first stage: gets a request's original bytes from the disk cache, or waits for a
/// download slot and loads them (revalidating cached bytes when asked), then stores them.
/// Shared by every request for the same bytes, whatever they do with them afterwards.
final class FetchOriginalData: Sendable {
    private let context: PipelineContext
    let stage: Stage<DataWorkKey, LoadedData>

    init(context: PipelineContext) {
        self.context = context
        stage = Stage(.fetch, context: context)
    }

    /// The original's fetch for `input` if it is running now, joined; `nil` when none is.
    func running(for input: StageInput) -> SharedTask<LoadedData>? {
        stage.running(input.keys.dataWork)
    }

    func task(for input: StageInput) -> SharedTask<LoadedData> {
        let url = input.request.url
        let description = Stage<DataWorkKey, LoadedData>.Description(
            start: { ["magpie.source.scheme": .string(url.scheme ?? ""), "magpie.source.host": .string(url.host() ?? "")] },
            result: { ["magpie.bytes": .int64(Int64($0.bytes.count)), "magpie.answered.from": .string($0.source.rawValue)] })
        return stage.task(for: input.keys.dataWork, describing: description) { [self] shared throws(MagpieError) in
            try await fetch(input, shared: shared)
        }.task
    }

    private func fetch(_ input: StageInput, shared: SharedTask<LoadedData>) async throws(MagpieError) -> LoadedData {
        if let original = input.original { return original }
        let request = input.request
        guard let scheme = request.url.scheme?.lowercased(), let loader = context.sourceLoaders[scheme] else {
            throw .invalidURL(request.url.absoluteString, reason: "no loader reads the scheme \(request.url.scheme ?? "(none)")")
        }
        guard loader.isRemote else {
            guard case .loaded(let data) = try await load(input, with: loader, revalidating: nil, shared: shared) else {
                throw .httpStatus(304, request.url)
            }
            return LoadedData(bytes: data.bytes, metadata: data.metadata, source: .disk)
        }
        var cached: CachedData?
        if !request.options.contains(.networkOnly) {
            cached = await context.storedOriginal(for: input.keys.data)
        }
        // A refresh always asks the source: conditionally when the entry has a validator,
        // otherwise by loading again.
        if let cached, !request.options.contains(.refreshCached) {
            try input.keys.sources.check(redirects: cached.metadata.redirects, of: request.url)
            return LoadedData(bytes: cached.data, metadata: cached.metadata, source: .disk)
        }
        if request.options.contains(.cacheOnly) { throw .notCached }

        let scheduler = context.scheduler
        let ticket = scheduler.makeTicket(priority: shared.priority, arrival: input.arrival)
        shared.onPriorityChange { scheduler.setPriority($0, for: ticket) }
        try await shared.clock.queue { () throws(MagpieError) in
            do {
                try await scheduler.acquire(ticket)
            } catch {
                throw .cancelled
            }
        }
        defer { scheduler.release() }
        if Task.isCancelled { throw .cancelled }

        shared.send(.task(.started))
        context.recorder.record(.downloadStarted)
        return try await download(input, with: loader, revalidating: cached, shared: shared)
    }

    /// Asks `loader` for the request's bytes (after the request modifier), counting a remote
    /// source's failure against the URL in the blocklist.
    private func load(
        _ input: StageInput, with loader: any SourceLoader, revalidating cached: CachedData?, shared: SharedTask<LoadedData>
    ) async throws(MagpieError) -> SourceResponse {
        let request = input.request
        let dataKey = input.keys.data
        let blocklist = context.blocklist
        var outgoing = OutgoingRequest(url: request.url, headers: request.headers)
        if loader.isRemote, let modifier = context.configuration.requestModifier {
            do {
                try await modifier(&outgoing)
            } catch {
                throw .network(NetworkFailure(.other, "the request modifier failed: \(error)"))
            }
        }
        let sourceRequest = SourceRequest(
            url: outgoing.url, headers: outgoing.headers, limit: context.configuration.maximumResponseBytes,
            cached: cached?.metadata.canRevalidate == true ? cached?.metadata : nil,
            transport: context.loader, sources: input.keys.sources,
            download: Download(
                url: outgoing.url, resumeKey: dataKey, previews: request.options.contains(.progressivePreviews),
                now: context.configuration.wallClock, onRetryAfter: { wait in blocklist?.block(dataKey, for: wait) },
                onEvent: shared.send))
        let response: SourceResponse
        do {
            response = try await loader.load(sourceRequest)
        } catch {
            // A file is cheap to look for again, and may be there the next time.
            if loader.isRemote { blocklist?.record(error, for: dataKey) }
            throw error
        }
        if case .loaded(let data) = response, data.bytes.count > sourceRequest.limit {
            throw .responseTooLarge(limit: sourceRequest.limit)
        }
        return response
    }

    private func download(
        _ input: StageInput, with loader: any SourceLoader, revalidating cached: CachedData?, shared: SharedTask<LoadedData>
    ) async throws(MagpieError) -> LoadedData {
        let request = input.request
        let dataKey = input.keys.data
        switch try await load(input, with: loader, revalidating: cached, shared: shared) {
        case .notModified(let fresh):
            guard var entry = cached else { throw .httpStatus(304, request.url) }
            context.recorder.record(.revalidated)
            entry.metadata.freshUntil = fresh.freshUntil
            entry.metadata.cacheControl = fresh.cacheControl
            if let etag = fresh.etag { entry.metadata.etag = etag }
            if let lastModified = fresh.lastModified { entry.metadata.lastModified = lastModified }
            entry.metadata.redirects = fresh.redirects
            context.originals?.store(entry)
            return LoadedData(bytes: entry.data, metadata: entry.metadata, source: .network)
        case .loaded(let data):
            let bytes = data.bytes
            context.recorder.record(.downloaded(bytes: bytes.count - data.resumedFrom))
            if data.resumedFrom > 0 { context.recorder.record(.resumed) }
            // New bytes make every variant made from the old ones stale. A network-only load
            // did not read the entry it replaces, so it retires them too.
            if cached != nil || request.options.contains(.networkOnly) { await context.variants?.removeVariants(of: dataKey) }
            // Only bytes that look like an image are kept: an HTML error page served with status
            // 200 must not be cached.
            if let originals = context.originals, input.keys.keepsOriginal, ImageFormat(sniffing: bytes) != .unknown {
                originals.store(CachedData(key: dataKey, data: bytes, metadata: data.metadata ?? HTTPMetadata()))
            }
            return LoadedData(bytes: bytes, metadata: data.metadata, source: .network)
        }
    }
}
