public import Foundation
import Logging
public import Magpie
public import Prometheus
import Tracing

/// The image proxy: answers `/<signature>/<options>/<source>` with the source image resized,
/// processed and encoded as asked. The proxy is HTTP only (URLs and signatures, source rules,
/// negotiation, validators and headers, admission, metrics and logs); its ``pipeline`` fetches,
/// decodes, processes, encodes and caches, sharing identical work at every stage.
/// Framework-neutral: ``ProxyServer`` serves it over HTTP with Hummingbird, and any server can
/// call ``respond(to:)``.
///
/// ```swift
/// var configuration = ProxyConfiguration(cacheDirectory: cacheURL)
/// configuration.signingKeys = [try SigningKey(keyHex: key, saltHex: salt)]
/// let proxy = try ImageProxy(configuration: configuration)
/// let response = await proxy.respond(to: ProxyRequest(path: request.path, headers: headers))
/// ```
public final class ImageProxy: Sendable {
    public let configuration: ProxyConfiguration
    /// The pipeline that makes every image: originals and encoded results on disk, results in
    /// memory.
    public let pipeline: ImagePipeline
    /// Where the proxy's and the pipeline's metrics are registered. Its gauges of requests in
    /// progress and of libvips' memory are set when they are read: call ``refreshMetrics()``
    /// before emitting it (the proxy's own `/metrics` does).
    public let metricsRegistry: PrometheusCollectorRegistry

    /// Sets the gauges kept as counts (requests in progress, workers' utilisation) and libvips'
    /// memory, for a read of ``metricsRegistry``.
    public func refreshMetrics() {
        metrics.refresh()
    }

    /// imgproxy's and thumbor's, which read URLs and name their statuses.
    let grammars: Grammars
    private let admission: Admission
    let metrics: ProxyMetrics
    let logger: Logger
    private let recorder: AnswerRecorder
    /// Marks once fetched and decoded, or drawn, by their identifier: the proxy keeps no
    /// decoded images otherwise (its results are encoded), and a mark is laid on many results.
    let marks: ImageCache
    /// URLs read recently, so that a URL asked again is not read again.
    let readURLs = ReadURLs()

    /// Creates the proxy; throws when it would accept no URL (no key and unsigned URLs off)
    /// or a preset does not parse.
    public init(configuration: ProxyConfiguration) throws(ProxyConfigurationError) {
        guard !configuration.signingKeys.isEmpty || !configuration.thumborSecurityKeys.isEmpty || configuration.allowsUnsignedURLs else {
            throw ProxyConfigurationError(message: "give a signing key and salt, or allow unsigned URLs explicitly")
        }
        var presets: [String: [String]] = [:]
        for (name, options) in configuration.presets {
            presets[name] = options.split(separator: "/").map(String.init)
        }
        let security = OptionParser.Security(
            allowsURLOptions: configuration.allowsSecurityOptions, sourcePixels: configuration.pipeline.maximumPixels,
            sourceBytes: configuration.pipeline.maximumResponseBytes, animationFrames: configuration.pipeline.maximumAnimationFrames,
            resultDimension: configuration.maximumResultDimension)
        if let name = OptionParser.clashingName(among: configuration.processingOptions) {
            throw ProxyConfigurationError(message: "the processing option '\(name)' is named twice (imgproxy's options and Magpie's own)")
        }
        var parser = OptionParser(presets: presets, limits: configuration.limits, now: configuration.pipeline.wallClock, security: security)
        parser.processingOptions = configuration.processingOptions
        for (name, segments) in presets {
            do {
                _ = try parser.parse(segments)
            } catch {
                throw ProxyConfigurationError(message: "preset '\(name)': \(error.message)")
            }
        }
        // Presets are checked as written; URLs are read by the deployment's rules.
        parser.rules = configuration.imgproxyURLRules
        self.configuration = configuration
        grammars = Grammars(
            imgproxy: ImgproxyGrammar(
                signer: URLSigner(keys: configuration.signingKeys, signatureSize: configuration.signatureSize), parser: parser,
                allowsUnsignedURLs: configuration.allowsUnsignedURLs, watermarkOpacity: configuration.watermarkOpacity,
                autoFormats: configuration.imgproxyAutoFormats, enforcedFormats: configuration.imgproxyEnforcedFormats,
                preferredFormats: configuration.imgproxyPreferredFormats, rules: configuration.imgproxyURLRules,
                preservesHighDepth: configuration.preservesHighDepth, alwaysRasterizesSVG: configuration.alwaysRasterizesSVG),
            thumbor: ThumborGrammar(
                signer: ThumborSigner(keys: configuration.thumborSecurityKeys), limits: configuration.limits,
                allowsUnsignedURLs: configuration.allowsUnsignedURLs, maximumResultDimension: configuration.maximumResultDimension,
                automaticFormat: configuration.thumborAutomaticFormat, opaquePNGAsJPEG: configuration.thumborOpaquePNGAsJPEG,
                optionalFilters: configuration.thumborOptionalFilters, maxAge: configuration.thumborMaxAge, sourceLimit: configuration.thumborSourceLimit,
                svgDPI: configuration.thumborSVGDPI, healthcheckRoute: configuration.thumborHealthcheckRoute))
        metricsRegistry = PrometheusCollectorRegistry()
        metrics = ProxyMetrics(registry: metricsRegistry, namespace: configuration.prometheusNamespace, workers: configuration.processingSlots)
        var pipelineConfiguration = configuration.pipeline
        if pipelineConfiguration.metricsFactory == nil {
            pipelineConfiguration.metricsFactory = metrics.factory
        }
        // What the proxy promises clients (`max-age`) bounds how long a result is served.
        pipelineConfiguration.encodedImageMaxAge = configuration.cacheMaxAge
        pipeline = ImagePipeline(configuration: pipelineConfiguration)
        let metrics = self.metrics
        admission = Admission(slots: configuration.processingSlots, queueLimit: configuration.queueLimit) { metrics.queueChanged(by: $0) }
        logger = configuration.logger
        recorder = AnswerRecorder(metrics: metrics, logger: configuration.logger)
        // 64 MB: four marks of the largest size a fetched one keeps, or hundreds of usual ones.
        marks = ImageCache(
            limits: .init(totalCost: 64 << 20, count: 512, entryCost: 16 << 20, timeToLive: configuration.cacheMaxAge),
            now: configuration.pipeline.clock)
    }

    /// Processing slots in use and requests waiting for one (for tests and diagnostics).
    package var processingUsage: (running: Int, queued: Int) {
        let usage = admission.usage
        return (usage.running, usage.queued)
    }

    /// Marks kept decoded or drawn (for tests and diagnostics).
    package var keptMarkCount: Int { marks.count }

    /// Stops the pipeline.
    public func shutdown() async {
        await pipeline.shutdown()
    }

    /// The path to request `source` with `options` (`s:256:256/fit:fill`...), signed with the
    /// first key, or with `unsafe` when there is none.
    public func path(for source: URL, options: String) -> String {
        let part = "/" + (options.isEmpty ? "" : options + "/") + "plain/" + Self.percentEncoded(source.absoluteString)
        let signer = grammars.imgproxy.signer
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
        fileprivate let span: any Span
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
        let span = RequestSpan.start(for: request, redacted: redacted)
        switch prepare(request) {
        case .answered(let answer): return .answered(recorder.recorded(answer, request: request, started: started, span: span))
        case .needsWork(let work): return .pending(PendingRequest(work: work, request: request, started: started, span: span))
        }
    }

    /// Answers a pending request within the request timeout.
    func answer(_ pending: PendingRequest) async -> ProxyResponse {
        // The stages' spans nest under the request's; with tracing off the context is left as
        // the caller's.
        let answer =
            pending.span.isRecording
            ? await ServiceContext.$current.withValue(pending.span.context) { await answerWithinTimeout(pending.work, pending.request) }
            : await answerWithinTimeout(pending.work, pending.request)
        return recorder.recorded(answer, request: pending.request, started: pending.started, span: pending.span)
    }

    typealias Answer = AnswerRecorder.Answer

    /// What a pending request needs done, from its URL and headers.
    struct Work: Sendable {
        /// Whose URL it is: failures are answered with that server's statuses.
        let grammar: any ProxyGrammar
        var reply = ProxyURL.Reply.image
        /// What the grammar skipped of the URL, said in the answer.
        let skipped: [String]
        /// The URL's own `max_age`, over the server's.
        let maxAge: Int?
        /// The URL's own limit on the source's bytes, below the operator's.
        let sourceByteLimit: Int?
        var request: ImageRequest
        /// The watermark's mark when it was ready at reading (the operator's), else the one still
        /// to be fetched or drawn; a frame's nine-patch still to be fetched; the plan that lays them.
        let readyMark: ImageProcessors.Watermark.Mark?
        let pendingMark: WatermarkOptions.Mark?
        let pendingFrame: URL?
        let plan: RenderPlan
        let encoding: EncodingRequest
        /// Serve the source's bytes as they are: always (`raw`), or when it is in one of these
        /// formats (`skip_processing`).
        let servesSourceAlways: Bool
        let servesSourceIn: Set<ImageFormat>
        /// `Content-Disposition`'s name without extension, and whether it is an attachment.
        let filename: String
        let attachment: Bool
        /// The request and its keys (the source's and the result's, which name the ETag and the
        /// result in the caches), derived once at reading: a hot URL's work is kept, and so are they.
        let prepared: PreparedEncoding
        let varies: Bool
        let cacheTag: String
        /// The headers its result was last answered with, for the next hit.
        let resultHeaders = ResultHeaders()

        func etag(sourceValidator: String) -> String {
            Validators.etag(source: prepared.sourceKey, variant: prepared.storedKey.variant, sourceValidator: sourceValidator)
        }

        /// Whether the answer is the pipeline's encoded image, which running work may share.
        var servesImage: Bool {
            guard case .image = reply else { return false }
            return !servesSourceAlways && servesSourceIn.isEmpty
        }
    }

    enum Preparation {
        case answered(Answer)
        case needsWork(Work)
    }

    private func answerWithinTimeout(_ work: Work, _ request: ProxyRequest) async -> Answer {
        let timeout = configuration.requestTimeout
        let (result, timedOut) = await Deadline.run(within: timeout) { await self.answer(work, request) }
        if !timedOut, case .success(let answer) = result { return answer }
        metrics.imgproxy.failed(.timeout)
        return (failure(504, "answering took longer than \(timeout.components.seconds) s"), StageTimings(), nil)
    }

    /// Admits the request, then tries the answerers in order (``answerers``).
    private func answer(_ work: Work, _ request: ProxyRequest) async -> Answer {
        var answering = AnswerInProgress(proxy: self, request: request, work: work)
        // Everything the answerers do is the request's cost (fetches, decodes, marks, hashes):
        // it is admitted first. Only a request joining an image already being made takes no slot.
        let joins = work.servesImage && pipeline.isEncoding(answering.prepared)
        // A request for another image of a source being loaded waits for that load without a
        // slot, and is made from it once admitted, rather than loading it again.
        if !joins, work.servesImage { _ = await pipeline.joinRunningOriginal(of: &answering.prepared) }
        do {
            if !joins {
                let queued = ContinuousClock.now
                guard case .admitted = try await admission.enter() else {
                    metrics.imgproxy.failed(.queue)
                    var response = failure(503, "busy: every processing slot and queue place is taken")
                    response.headers.append(("Retry-After", "1"))
                    return answering.answered(response)
                }
                answering.timings.add(ContinuousClock.now - queued, to: .queue)
            }
        } catch {
            // The request was cancelled in the queue.
            return answering.answered(failure(work.grammar.status(for: .cancelled), MagpieError.cancelled.description))
        }
        // A request joining one being made adds no image in progress.
        if !joins { metrics.imgproxy.imageStarted() }
        defer {
            if !joins {
                metrics.imgproxy.imageFinished()
                admission.leave()
            }
        }
        do throws(MagpieError) {
            for answerer in Self.answerers {
                if let answer = try await answerer.answer(&answering) { return answer }
            }
            preconditionFailure("the last answerer always answers")
        } catch {
            let aboutSource = error.stage == .fetch || error.stage == .decode
            if error != .cancelled { metrics.imgproxy.failed(error.stage == .fetch ? .downloading : .processing) }
            return answering.answered(failure(work.grammar.status(for: error), error.description, aboutSource: aboutSource))
        }
    }

    /// The original's validator: its ETag or Last-Modified, else a digest of its bytes, taken
    /// on the decoding threads (a 64 MB body takes a tenth of a second to hash).
    func sourceValidator(of original: DataResponse) async throws(MagpieError) -> String {
        if let validator = EncodedImage.validator(fromMetadata: original.metadata) { return validator }
        return try await pipeline.runOnDecodingThreads { () throws(MagpieError) in
            EncodedImage.validator(of: original.data, metadata: original.metadata)
        }
    }

}

/// A configuration the proxy cannot run with.
public struct ProxyConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
