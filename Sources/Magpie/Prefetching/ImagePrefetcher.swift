public import Foundation
import NIOConcurrencyHelpers

/// Warms the caches ahead of need, at the lowest priority, a few downloads at a time.
///
/// ```swift
/// let prefetcher = ImagePrefetcher(pipeline: pipeline)
/// prefetcher.start(nextPageURLs)
/// // ... the user scrolls elsewhere:
/// prefetcher.stop()
/// ```
///
/// Prefetches run at ``ImageRequest/Priority/veryLow``, so a visible request queued behind them
/// starts first. URLs already cached are skipped without touching the network.
public final class ImagePrefetcher: Sendable {
    /// Where prefetched images end up.
    public enum Destination: Sendable {
        /// Original bytes in the disk cache; nothing is decoded.
        case diskCache
        /// Decoded images in the memory cache (and their bytes on disk).
        case memoryCache
    }

    /// How far the prefetching has come.
    public struct Progress: Sendable, Equatable {
        /// URLs loaded into the cache.
        public var completed = 0
        /// URLs that failed (cancelled ones are not counted).
        public var failed = 0
        /// URLs that were already cached.
        public var skipped = 0
        /// URLs handed to ``start(_:)`` since the last ``stop()``.
        public var total = 0

        /// Whether every URL has been dealt with.
        public var isFinished: Bool { completed + failed + skipped == total }

        public init() {}
    }

    /// How one URL ended.
    public enum Outcome: Sendable {
        /// Loaded into the cache.
        case completed
        /// Already cached; nothing was loaded.
        case skipped
        /// The load failed.
        case failed(MagpieError)
    }

    /// One URL dealt with, and the progress after it (what SDWebImage's prefetcher delegate hears).
    public struct Update: Sendable {
        /// The URL.
        public let url: URL
        /// How its prefetch ended.
        public let outcome: Outcome
        /// Progress including this URL.
        public let progress: Progress
    }

    private struct State {
        var progress = Progress()
        var runs: [UInt64: Task<Void, Never>] = [:]
        var nextRun: UInt64 = 0
    }

    private let pipeline: ImagePipeline
    private let destination: Destination
    private let thumbnail: ImageRequest.Thumbnail?
    private let processors: [any ImageProcessing]
    private let maximumConcurrent: Int
    private let onProgress: (@isolated(any) @Sendable (Update) -> Void)?
    private let state = NIOLockedValueBox(State())

    /// Creates a prefetcher. `onProgress` is called after each URL is dealt with (cancelled ones
    /// are not reported), in the isolation it was written in (the main actor's, in `@MainActor`
    /// code). Give the `thumbnail` and `processors` the images will be shown with, so the
    /// prefetched entries are the ones the loads look for.
    public init(
        pipeline: ImagePipeline, destination: Destination = .diskCache, thumbnail: ImageRequest.Thumbnail? = nil,
        processors: [any ImageProcessing] = [], maximumConcurrent: Int = 2,
        // A closure written in isolated code keeps that isolation, as `Task.init`'s does.
        @_inheritActorContext onProgress: (@isolated(any) @Sendable (Update) -> Void)? = nil
    ) {
        self.pipeline = pipeline
        self.destination = destination
        self.thumbnail = thumbnail
        self.processors = processors
        self.maximumConcurrent = max(1, maximumConcurrent)
        self.onProgress = onProgress
    }

    /// Starts prefetching `urls` (in addition to any batch already running).
    public func start(_ urls: [URL]) {
        state.withLockedValue { state in
            state.progress.total += urls.count
            state.nextRun += 1
            let id = state.nextRun
            state.runs[id] = Task { [self] in
                await run(urls)
                _ = self.state.withLockedValue { $0.runs.removeValue(forKey: id) }
            }
        }
    }

    /// Cancels every outstanding prefetch and resets the progress.
    public func stop() {
        let runs = state.withLockedValue { state in
            defer {
                state.runs.removeAll()
                state.progress = Progress()
            }
            return Array(state.runs.values)
        }
        for run in runs { run.cancel() }
    }

    /// Progress so far.
    public var progress: Progress { state.withLockedValue { $0.progress } }

    /// Waits until every batch started so far has finished or been stopped.
    public func wait() async {
        while let run = state.withLockedValue({ $0.runs.values.first }) {
            await run.value
        }
    }

    private func run(_ urls: [URL]) async {
        await withTaskGroup(of: Void.self) { group in
            var pendingURLs = urls.makeIterator()
            for _ in 0..<maximumConcurrent {
                guard let url = pendingURLs.next() else { break }
                group.addTask { await self.prefetch(url) }
            }
            while await group.next() != nil {
                guard !Task.isCancelled, let url = pendingURLs.next() else { continue }
                group.addTask { await self.prefetch(url) }
            }
        }
    }

    private func prefetch(_ url: URL) async {
        let request = ImageRequest(url: url, thumbnail: thumbnail, processors: processors, priority: .veryLow)
        let keys = RequestKeys(request, configuration: pipeline.configuration)
        let outcome: Outcome
        if await isCached(request, keys: keys) {
            outcome = .skipped
        } else {
            do throws(MagpieError) {
                switch destination {
                case .diskCache where keys.keepsVariant:
                    // The variant is what the disk should hold, and only a whole load makes it.
                    _ = try await pipeline.image(for: request)
                case .diskCache:
                    // Bytes that are not an image are never cached, so they did not warm anything.
                    let data = try await pipeline.data(for: request).data
                    if ImageFormat(sniffing: data) == .unknown {
                        throw MagpieError.unsupportedFormat(ImageFormat.notDecodable)
                    }
                case .memoryCache: _ = try await pipeline.image(for: request)
                }
                outcome = .completed
            } catch .cancelled {
                return
            } catch {
                outcome = .failed(error)
            }
        }
        let progress = state.withLockedValue { state -> Progress? in
            // A URL finishing after stop() belongs to no batch any more.
            guard !Task.isCancelled else { return nil }
            switch outcome {
            case .completed: state.progress.completed += 1
            case .failed: state.progress.failed += 1
            case .skipped: state.progress.skipped += 1
            }
            return state.progress
        }
        if let progress, let onProgress { await onProgress(Update(url: url, outcome: outcome, progress: progress)) }
    }

    private func isCached(_ request: ImageRequest, keys: RequestKeys) async -> Bool {
        if pipeline.cachedImage(for: request) != nil { return true }
        guard destination == .diskCache else { return false }
        let context = pipeline.context
        if keys.keepsVariant, let variant = keys.variant, let variants = context.variants,
            await variants.containsVariant(for: keys.data, variant: variant)
        {
            return true
        }
        return await context.originals?.containsEntry(for: keys.data) ?? false
    }
}
