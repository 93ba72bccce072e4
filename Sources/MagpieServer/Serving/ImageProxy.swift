public import Foundation
import Logging
public import Magpie
import NIOPosix
public import Prometheus

/// The image proxy: answers `/<signature>/<options>/<source>` with the source image resized,
/// processed and encoded as asked, from its caches when it can. Framework-neutral: ``ProxyServer``
/// serves it over HTTP with Hummingbird, and any server can call ``respond(to:)``.
///
/// ```swift
/// var configuration = ProxyConfiguration(cacheDirectory: cacheURL)
/// configuration.signingKeys = [try SigningKey(keyHex: key, saltHex: salt)]
/// let proxy = try ImageProxy(configuration: configuration)
/// let response = await proxy.respond(to: ProxyRequest(path: request.path, headers: headers))
/// ```
public final class ImageProxy: Sendable {
    public let configuration: ProxyConfiguration
    /// The pipeline that fetches originals (and keeps them on disk).
    public let pipeline: ImagePipeline
    /// Where the proxy's and the pipeline's metrics are registered.
    public let metricsRegistry: PrometheusCollectorRegistry

    private let signer: URLSigner
    private let parser: OptionParser
    private let results: ResultCache
    private let admission: Admission
    private let renderer: Renderer
    private let threads: NIOThreadPool
    private let metrics: ProxyMetrics
    private let work = TaskPool<ResultCache.Key, RenderOutcome>()
    private let negotiation: FormatNegotiation
    private let logger: Logger

    /// Creates the proxy; throws when it would accept no URL (no key and unsigned URLs off)
    /// or a preset does not parse.
    public init(configuration: ProxyConfiguration) throws(ProxyConfigurationError) {
        guard !configuration.signingKeys.isEmpty || configuration.allowsUnsignedURLs else {
            throw ProxyConfigurationError(message: "give a signing key and salt, or allow unsigned URLs explicitly")
        }
        var presets: [String: [String]] = [:]
        for (name, options) in configuration.presets {
            presets[name] = options.split(separator: "/").map(String.init)
        }
        let parser = OptionParser(presets: presets, limits: configuration.limits)
        for (name, segments) in presets {
            do {
                _ = try parser.parse(segments.filter { !$0.hasPrefix("pr:") && !$0.hasPrefix("preset:") })
            } catch {
                throw ProxyConfigurationError(message: "preset '\(name)': \(error.message)")
            }
        }
        self.configuration = configuration
        self.parser = parser
        signer = URLSigner(keys: configuration.signingKeys)
        metricsRegistry = PrometheusCollectorRegistry()
        metrics = ProxyMetrics(registry: metricsRegistry)
        var pipelineConfiguration = configuration.pipeline
        if pipelineConfiguration.metricsFactory == nil {
            pipelineConfiguration.metricsFactory = PrometheusMetricsFactory(registry: metricsRegistry)
        }
        pipeline = ImagePipeline(configuration: pipelineConfiguration)
        let wallClock = pipelineConfiguration.wallClock
        results = ResultCache(
            memoryLimit: configuration.resultMemoryLimit, disk: pipeline.dataCache, timeToLive: configuration.cacheMaxAge, now: wallClock)
        let metrics = self.metrics
        admission = Admission(slots: configuration.processingSlots, queueLimit: configuration.queueLimit) { metrics.queueChanged(by: $0) }
        threads = NIOThreadPool(numberOfThreads: max(1, configuration.processingSlots))
        threads.start()
        renderer = Renderer(decoder: pipelineConfiguration.decoder, threads: threads)
        negotiation = FormatNegotiation()
        logger = configuration.logger
    }

    /// Stops the pipeline and the processing threads.
    public func shutdown() async {
        await pipeline.shutdown()
        try? await threads.shutdownGracefully()
    }

    /// The path to request `source` with `options` (`s:256:256/fit:fill`...), signed with the
    /// first key, or with `unsafe` when there is none.
    public func path(for source: URL, options: String) -> String {
        let part = "/" + (options.isEmpty ? "" : options + "/") + "plain/" + Self.percentEncoded(source.absoluteString)
        return signer.keys.isEmpty ? "/unsafe" + part : signer.sign(part)
    }

    /// The `Cache-Tag` of every response made from `source`, to purge them from a CDN.
    public static func cacheTag(for source: URL) -> String {
        Validators.cacheTag(for: source)
    }

    /// Answers one request. Never throws: every failure is a response with a status and a
    /// one-line reason. Cancelling the calling task (the client went away) leaves the work,
    /// which stops unless another request is waiting for the same result.
    public func respond(to request: ProxyRequest) async -> ProxyResponse {
        switch firstLook(at: request) {
        case .answered(let response): response
        case .pending(let pending): await answer(pending)
        }
    }

    /// A request read, checked and looked up in memory that still needs waiting: the disk, the
    /// network or processing.
    struct PendingRequest: Sendable {
        fileprivate let work: Work
        fileprivate let request: ProxyRequest
        fileprivate let started: ContinuousClock.Instant
    }

    enum FirstLook: Sendable {
        /// Answered at once: a bad URL, or a result in the memory cache.
        case answered(ProxyResponse)
        case pending(PendingRequest)
    }

    /// Reads and checks the request and answers it if that needs no waiting. Servers look
    /// first and set up a timeout and a watch on the client only for what is pending: for a
    /// memory-cache hit those cost more than the answer itself.
    func firstLook(at request: ProxyRequest) -> FirstLook {
        let started = ContinuousClock.now
        metrics.started()
        switch prepare(request) {
        case .answered(let answer): return .answered(finish(answer, request: request, started: started))
        case .needsWork(let work): return .pending(PendingRequest(work: work, request: request, started: started))
        }
    }

    /// Answers a pending request within the request timeout.
    func answer(_ pending: PendingRequest) async -> ProxyResponse {
        let answer = await answerWithinTimeout(pending.work, pending.request)
        return finish(answer, request: pending.request, started: pending.started)
    }

    private typealias Answer = (response: ProxyResponse, timings: StageTimings, cache: String?)

    /// What a pending request needs done, from its URL and headers.
    fileprivate struct Work: Sendable {
        let source: URL
        let plan: RenderPlan
        let format: ProxyOptions.Format?
        let accepted: FormatNegotiation.Accepted
        let quality: Int
        let key: ResultCache.Key
        let varies: Bool
        let cacheTag: String
    }

    private enum Preparation {
        case answered(Answer)
        case needsWork(Work)
    }

    private func finish(_ answer: Answer, request: ProxyRequest, started: ContinuousClock.Instant) -> ProxyResponse {
        let (response, timings, cache) = answer
        let total = started.duration(to: .now)
        var answered = response
        answered.headers.append(("Server-Timing", timings.serverTiming(total: total, cache: cache)))
        answered.headers.append(("X-Request-Id", request.id))
        metrics.finished(status: answered.status, total: total, timings: timings)
        logger.info(
            "request",
            metadata: [
                "id": "\(request.id)", "path": "\(request.path)", "status": "\(answered.status)", "bytes": "\(answered.body.count)",
                "ms": "\(StageTimings.milliseconds(total))", "cache": "\(cache ?? "miss")",
            ])
        return answered
    }

    private func prepare(_ request: ProxyRequest) -> Preparation {
        do throws(ProxyURLError) {
            let path = try ProxyPath(Self.pathOnly(request.path))
            try checkSignature(of: path)
            let options = try parser.parse(path.optionSegments)
            let plan = try RenderPlan(options, limits: configuration.limits)
            if case .failure(let refusal) = Result(catching: { () throws(MagpieError) in try configuration.sources.check(path.source) }) {
                throw ProxyURLError.forbidden(refusal.description)
            }
            let accepted = FormatNegotiation.Accepted(header: request.headers["accept"])
            let quality = options.quality ?? configuration.defaultQuality
            let key = ResultCache.Key(
                source: pipeline.configuration.cacheKey(path.source), plan: plan, format: options.format, accepted: accepted,
                quality: quality)
            let work = Work(
                source: path.source, plan: plan, format: options.format, accepted: accepted, quality: quality, key: key,
                varies: options.format == .auto, cacheTag: Validators.cacheTag(for: path.source))
            if let hit = results.memoryResult(for: key) {
                metrics.cacheHit(.memory)
                return .answered((success(hit, request: request, varies: work.varies, cacheTag: work.cacheTag), StageTimings(), "memory"))
            }
            return .needsWork(work)
        } catch {
            return .answered((failure(error.status, error.message), StageTimings(), nil))
        }
    }

    private func answerWithinTimeout(_ work: Work, _ request: ProxyRequest) async -> Answer {
        let timeout = configuration.requestTimeout
        let (result, timedOut) = await Deadline.run(within: timeout) { await self.answer(work, request) }
        if !timedOut, case .success(let answer) = result { return answer }
        return (failure(504, "answering took longer than \(timeout.components.seconds) s"), StageTimings(), nil)
    }

    private func answer(_ work: Work, _ request: ProxyRequest) async -> Answer {
        var timings = StageTimings()
        let (key, varies, cacheTag) = (work.key, work.varies, work.cacheTag)
        do {
            if let (hit, tier) = await results.result(for: key) {
                metrics.cacheHit(tier)
                return (success(hit, request: request, varies: varies, cacheTag: cacheTag), timings, tier.rawValue)
            }
            metrics.cacheMiss()
            let clock = ContinuousClock()
            let downloadStart = clock.now
            let original = try await pipeline.data(for: ImageRequest(url: work.source))
            timings.add(downloadStart.duration(to: clock.now), to: .download)
            let etag = Validators.etag(variant: key, source: original.metadata, bytes: original.data)
            if Validators.matches(request.headers["if-none-match"], etag) {
                // The client has this version: no decoding.
                return (notModified(etag: etag, varies: varies, cacheTag: cacheTag), timings, nil)
            }
            guard ImageFormat(sniffing: original.data) != .unknown else {
                throw MagpieError.unsupportedFormat("the source is not a JPEG, PNG, GIF, WebP, HEIF or AVIF image")
            }
            let (plan, format, accepted, quality) = (work.plan, work.format, work.accepted, work.quality)
            let (task, joined) = self.work.task(for: key) { [self] _ throws(MagpieError) in
                try await render(original, plan: plan, format: format, accepted: accepted, quality: quality, key: key, etag: etag)
            }
            if joined { metrics.joined() }
            let outcome = try await task.value()
            switch outcome {
            case .rendered(let result, let workTimings):
                timings.merge(workTimings)
                return (success(result, request: request, varies: varies, cacheTag: cacheTag), timings, nil)
            case .queueFull:
                var response = failure(503, "busy: every processing slot and queue place is taken")
                response.headers.append(("Retry-After", "1"))
                return (response, timings, nil)
            }
        } catch let error as MagpieError {
            return (failure(FailureResponse.status(for: error), error.description), timings, nil)
        } catch {
            return (failure(500, "\(error)"), timings, nil)
        }
    }

    /// The shared work for one result: wait for a slot, decode, process, encode, cache.
    private func render(
        _ original: DataResponse, plan: RenderPlan, format: ProxyOptions.Format?, accepted: FormatNegotiation.Accepted, quality: Int,
        key: ResultCache.Key, etag: String
    ) async throws(MagpieError) -> RenderOutcome {
        var timings = StageTimings()
        let clock = ContinuousClock()
        let queued = clock.now
        let entry: Admission.Entry
        do {
            entry = try await admission.enter()
        } catch {
            throw .cancelled
        }
        guard case .admitted = entry else { return .queueFull }
        defer { admission.leave() }
        let limits = pipeline.configuration
        let decoding = DecodingOptions(
            thumbnail: plan.thumbnail, maximumPixels: limits.maximumPixels, decodesAllFrames: !plan.firstFrameOnly,
            maximumAnimationFrames: limits.maximumAnimationFrames, maximumAnimationPixels: limits.maximumAnimationPixels)
        // The pipeline's decode budget, shared with everything else the pipeline decodes.
        let decodeMemory = DecodeMemory.estimate(original.data, options: decoding)
        do {
            _ = try await pipeline.decodeBudget.enter(cost: decodeMemory)
        } catch {
            throw .cancelled
        }
        defer { pipeline.decodeBudget.leave(cost: decodeMemory) }
        timings.add(queued.duration(to: clock.now), to: .queue)
        if Task.isCancelled { throw .cancelled }
        let sourceFormat = ImageFormat(sniffing: original.data)
        let negotiation = self.negotiation
        let output = try await renderer.render(original.data, decoding: decoding, processors: plan.processors, quality: quality) { image in
            negotiation.format(for: format, accepted: accepted, image: image, source: sourceFormat)
        }
        timings.merge(output.timings)
        let result = ProxyResult(
            body: output.bytes, contentType: output.format.mediaType, etag: etag, lastModified: original.metadata?.lastModified,
            created: pipeline.configuration.wallClock())
        results.store(result, for: key)
        return .rendered(result, timings)
    }

    private func checkSignature(of path: ProxyPath) throws(ProxyURLError) {
        if path.signature == "unsafe" {
            guard configuration.allowsUnsignedURLs else { throw .forbidden("unsigned URLs are not accepted here") }
            return
        }
        guard !signer.keys.isEmpty, signer.isValid(path.signature, for: path.signedPart) else {
            throw .forbidden("the signature does not match the URL")
        }
    }

    // MARK: - Responses

    private var imageCacheControl: String {
        var value = "public, max-age=\(configuration.cacheMaxAge.components.seconds)"
        if configuration.staleWhileRevalidate > .zero {
            value += ", stale-while-revalidate=\(configuration.staleWhileRevalidate.components.seconds)"
        }
        return value
    }

    private func success(_ result: ProxyResult, request: ProxyRequest, varies: Bool, cacheTag: String) -> ProxyResponse {
        if Validators.matches(request.headers["if-none-match"], result.etag) {
            return notModified(etag: result.etag, varies: varies, cacheTag: cacheTag)
        }
        var headers: [(name: String, value: String)] = [
            ("Content-Type", result.contentType), ("Cache-Control", imageCacheControl), ("ETag", result.etag),
            ("Cache-Tag", cacheTag), ("Surrogate-Key", cacheTag),
        ]
        if let lastModified = result.lastModified { headers.append(("Last-Modified", lastModified)) }
        if varies { headers.append(("Vary", "Accept")) }
        metrics.served(format: String(result.contentType.dropFirst("image/".count)))
        return ProxyResponse(status: 200, headers: headers, body: result.body)
    }

    private func notModified(etag: String, varies: Bool, cacheTag: String) -> ProxyResponse {
        var headers: [(name: String, value: String)] = [
            ("Cache-Control", imageCacheControl), ("ETag", etag), ("Cache-Tag", cacheTag), ("Surrogate-Key", cacheTag),
        ]
        if varies { headers.append(("Vary", "Accept")) }
        return ProxyResponse(status: 304, headers: headers, body: [])
    }

    private func failure(_ status: Int, _ message: String) -> ProxyResponse {
        // Overload and timeouts say nothing about the image: no cache should keep them.
        let cacheControl = [503, 504, 499].contains(status) ? "no-store" : "public, max-age=\(configuration.errorMaxAge.components.seconds)"
        return ProxyResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", cacheControl)],
            body: Array((message + "\n").utf8))
    }

    private static func pathOnly(_ target: String) -> String {
        String(target.prefix { $0 != "?" && $0 != "#" })
    }

    private static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// What the shared work for one result ends with.
enum RenderOutcome: Sendable {
    case rendered(ProxyResult, StageTimings)
    case queueFull
}

/// A configuration the proxy cannot run with.
public struct ProxyConfigurationError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
