import CMagpieVips
import Foundation
import NIOPosix

/// What every stage of a pipeline uses: its configuration, caches, network and threads, and
/// the one recorder all counting goes through.
struct PipelineContext: Sendable {
    let configuration: ImagePipeline.Configuration
    let memory: PipelineMemory?
    let encodedCache: EncodedImageCache?
    /// Where originals are kept: the disk cache, or the shared store behind it.
    let originals: (any OriginalStoring)?
    /// Where variants are kept: the disk cache, or the shared store behind it.
    let variants: (any VariantStoring)?
    let loader: DataLoader
    /// ``ImagePipeline/Configuration/sourceLoaders``, with `http`, `https` and `data`, and `file`
    /// when file URLs are allowed.
    let sourceLoaders: [String: any SourceLoader]
    let scheduler: DownloadScheduler
    let decodingPool: DecodingPool
    /// Admits decodes within ``ImagePipeline/Configuration/decodeMemoryBudget``.
    let decodeBudget: Admission
    /// `nil` when the configuration switches it off (``ImagePipeline/Configuration/failedURLBlockDuration`` zero).
    let blocklist: FailedURLBlocklist?
    let recorder: PipelineRecorder
    let workTracker: WorkTracker?

    /// Decodes on the decoding threads: the one way both the decode stage (originals) and the
    /// load stage (variants on disk) decode. The wait for the memory budget goes to `clock` as
    /// queue time.
    func decode(
        _ bytes: [UInt8], for request: ImageRequest, to target: DecodeTarget, clock: StageClock
    ) async throws(MagpieError) -> DecodedImage {
        let decoder = configuration.decoder
        let decoding = decodingOptions(bytes, for: request, to: target)
        return try await admitted(decoding, clock: clock) { () throws(MagpieError) in
            try decoder.decode(bytes, options: decoding.options)
        }
    }

    /// How `bytes` are decoded to `target` for `request`, with the header read once here for
    /// both the layout's decode size and the memory estimate.
    func decodingOptions(_ bytes: [UInt8], for request: ImageRequest, to target: DecodeTarget) -> Decoding {
        var options = DecodingOptions(
            target: target, maximumPixels: configuration.maximumPixels,
            decodesAllFrames: !request.options.contains(.firstFrameOnly),
            maximumAnimationFrames: configuration.maximumAnimationFrames,
            maximumAnimationPixels: configuration.maximumAnimationPixels,
            firstFrameWhenTooLarge: request.options.contains(.firstFrameWhenTooLarge))
        options.vectorDPI = request.vectorDPI
        options.keepsHighDepth = request.options.contains(.keepsHighDepth)
        let header = DecodeMemory.header(of: bytes, vectorDPI: request.vectorDPI)
        var plan: LayoutPlan?
        if let header { (options.target, plan) = target.resolving(for: header, keepsHighDepth: options.keepsHighDepth) }
        let cost = header.map { DecodeMemory.estimate(bytes, options: options, header: $0) } ?? 0
        return Decoding(options: options, header: header, cost: cost, plan: plan)
    }

    /// A decode's options, the header they were resolved from, what it costs of the budget,
    /// and the plan of the layout the target was resolved by, if any.
    struct Decoding: Sendable {
        let options: DecodingOptions
        let header: magpie_header?
        let cost: Int
        let plan: LayoutPlan?
    }

    /// Runs `work` on the decoding threads once ``decodeBudget`` admits `decoding`'s cost; the
    /// wait goes to `clock` as queue time.
    func admitted<Value: Sendable>(
        _ decoding: Decoding, clock: StageClock, work: @escaping @Sendable () throws(MagpieError) -> Value
    ) async throws(MagpieError) -> Value {
        let budget = decodeBudget, cost = decoding.cost
        try await clock.queue { () throws(MagpieError) in
            do {
                _ = try await budget.enter(cost: cost)
            } catch {
                throw .cancelled
            }
        }
        defer { decodeBudget.leave(cost: cost) }
        return try await decodingPool.run(work)
    }

    /// After bytes failed to decode: they would fail again on every later load, so the URL is
    /// blocked for a while and the original is not kept. An animation over the limits is
    /// sound (a first-frame request can still use it), and a cancelled decode says nothing.
    func forgetUndecodable(_ error: MagpieError, keys: RequestKeys) async {
        if case .animationTooLarge = error { return }
        guard error != .cancelled else { return }
        blocklist?.record(error, for: keys.data)
        await originals?.removeEntry(for: keys.data)
    }
}

/// One request as the stages see it.
struct StageInput: Sendable {
    let request: ImageRequest
    let keys: RequestKeys
    /// The request's place in the download queue's FIFO/LIFO order.
    let arrival: UInt64
    /// The original, when the request already holds it (a server joined its download before
    /// the request was admitted): the fetch gives it instead of loading it again.
    var original: LoadedData? = nil
    /// The image, when a decode that tried to encode as it went made it instead: the stages
    /// after the decode take it as it is.
    var decoded: LoadedImage? = nil
    /// What the request's read of the memory cache saw, when it was read and missed: the load
    /// stage reads it again only if the pipeline has stored an image since.
    var missedMemory: PipelineMemory.Miss? = nil
}

/// The checks a request passes before any work starts.
extension PipelineContext {
    func validate(_ input: StageInput) throws(MagpieError) {
        let url = input.request.url
        let scheme = url.scheme?.lowercased() ?? ""
        if scheme == "http" || scheme == "https" {
            guard let host = url.host, !host.isEmpty else { throw .invalidURL(url.absoluteString, reason: "it has no host") }
            try input.keys.sources.check(url, hop: 0, of: url)
        } else if scheme == "file" {
            guard sourceLoaders["file"] != nil else {
                throw .invalidURL(url.absoluteString, reason: "file URLs are not allowed by the configuration")
            }
        } else {
            guard sourceLoaders[scheme] != nil else {
                throw .invalidURL(url.absoluteString, reason: "the scheme \(scheme.isEmpty ? "(none)" : scheme) is not allowed")
            }
            try input.keys.sources.check(url, hop: 0, of: url)
        }
        if !input.request.options.contains(.retryFailed), blocklist?.contains(input.keys.data) == true {
            throw .blocked(url)
        }
    }
}

/// Threads reserved for decoding, so that CPU-heavy, blocking decoder calls never occupy
/// Swift's cooperative thread pool. At most one decode per thread runs at a time; more wait.
final class DecodingPool: Sendable {
    private let threads: NIOThreadPool

    init(threadCount: Int) {
        threads = NIOThreadPool(numberOfThreads: max(1, threadCount))
        threads.start()
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws(MagpieError) -> T) async throws(MagpieError) -> T {
        let result: Result<T, MagpieError>
        do {
            result = try await threads.runIfActive { () -> Result<T, MagpieError> in
                do throws(MagpieError) { return .success(try work()) } catch { return .failure(error) }
            }
        } catch {
            throw .cancelled
        }
        return try result.get()
    }

    func shutdown() async {
        try? await threads.shutdownGracefully()
    }
}
