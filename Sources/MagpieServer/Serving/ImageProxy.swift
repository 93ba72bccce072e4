public import Foundation
import Logging
public import Magpie
public import Prometheus

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
    /// Where the proxy's and the pipeline's metrics are registered.
    public let metricsRegistry: PrometheusCollectorRegistry

    private let signer: URLSigner
    private let thumborSigner: ThumborSigner
    private let parser: OptionParser
    private let admission: Admission
    private let metrics: ProxyMetrics
    private let logger: Logger
    /// Marks once fetched and decoded, or drawn, by their identifier: the proxy keeps no
    /// decoded images otherwise (its results are encoded), and a mark is laid on many results.
    private let marks: ImageCache

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
        let parser = OptionParser(presets: presets, limits: configuration.limits, now: configuration.pipeline.wallClock)
        for (name, segments) in presets {
            do {
                _ = try parser.parse(segments)
            } catch {
                throw ProxyConfigurationError(message: "preset '\(name)': \(error.message)")
            }
        }
        self.configuration = configuration
        self.parser = parser
        signer = URLSigner(keys: configuration.signingKeys, signatureSize: configuration.signatureSize)
        thumborSigner = ThumborSigner(keys: configuration.thumborSecurityKeys)
        metricsRegistry = PrometheusCollectorRegistry()
        metrics = ProxyMetrics(registry: metricsRegistry)
        var pipelineConfiguration = configuration.pipeline
        if pipelineConfiguration.metricsFactory == nil {
            pipelineConfiguration.metricsFactory = PrometheusMetricsFactory(registry: metricsRegistry)
        }
        // What the proxy promises clients (`max-age`) bounds how long a result is served.
        pipelineConfiguration.encodedImageMaxAge = configuration.cacheMaxAge
        pipeline = ImagePipeline(configuration: pipelineConfiguration)
        let metrics = self.metrics
        admission = Admission(slots: configuration.processingSlots, queueLimit: configuration.queueLimit) { metrics.queueChanged(by: $0) }
        logger = configuration.logger
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
        /// An image, or JSON about the source.
        enum Reply: Sendable {
            case image
            /// imgproxy's `/info`.
            case info(InfoOptions)
            /// thumbor's `meta/`, for these options.
            case meta(ProxyOptions)
        }

        var reply = Reply.image
        var request: ImageRequest
        /// A watermark's mark still to be fetched or drawn, and the plan that lays it.
        let pendingMark: WatermarkOptions.Mark?
        let plan: RenderPlan
        let encoding: EncodingRequest
        /// Serve the source's bytes as they are: always (`raw`), or when it is in one of these
        /// formats (`skip_processing`).
        let servesSourceAlways: Bool
        let servesSourceIn: Set<ImageFormat>
        /// `Content-Disposition`'s name without extension, and whether it is an attachment.
        let filename: String
        let attachment: Bool
        /// The pipeline's cache key of the source and the result's variant name, for the ETag.
        let sourceKey: String
        let variant: String
        let varies: Bool
        let cacheTag: String

        func etag(sourceValidator: String) -> String {
            Validators.etag(source: sourceKey, variant: variant, sourceValidator: sourceValidator)
        }

        /// Whether the answer is the pipeline's encoded image, which running work may share.
        var servesImage: Bool {
            guard case .image = reply else { return false }
            return !servesSourceAlways && servesSourceIn.isEmpty
        }
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
        // Browsers take the proxy's Content-Type as it is, never guessing from the bytes.
        answered.headers.append(("X-Content-Type-Options", "nosniff"))
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
            var (grammar, pathOnly) = try grammar(of: Self.pathOnly(request.path))
            // imgproxy's `/info/<signature>/<info options>/<source>`: signed after `/info`.
            let asksInfo = grammar == .imgproxy && pathOnly.hasPrefix("/info/")
            if asksInfo { pathOnly = String(pathOnly.dropFirst("/info".count)) }
            if grammar == .imgproxy { pathOnly = ProxyPath.restoringNormalisation(pathOnly) }
            // The signature first: nothing it covers is read before it is known to be valid.
            let (signature, signedPart) = try ProxyPath.signed(pathOnly)
            var options: ProxyOptions
            let source: URL
            let sourceStem: String
            var reply = Work.Reply.image
            switch grammar {
            case .imgproxy:
                try checkSignature(signature, for: signedPart)
                let path = try ProxyPath(pathOnly)
                if asksInfo {
                    (reply, options) = (.info(try InfoOptions(path.optionSegments)), ProxyOptions())
                } else {
                    options = try parser.parse(path.optionSegments)
                    if let fileExtension = path.sourceExtension, !options.raw {
                        // The extension is the last word on the format, as imgproxy reads it.
                        options = try parser.parse(path.optionSegments + ["f:" + fileExtension])
                    }
                }
                (source, sourceStem) = (path.source, path.sourceStem)
            case .thumbor:
                try checkThumborSignature(signature, for: String(signedPart.dropFirst()))
                let path = try ThumborPath(pathOnly)
                (options, source, sourceStem) = (try ProxyOptions(thumbor: path, limits: configuration.limits), path.source, "image")
                if path.meta { reply = .meta(options) }
            }
            // IMGPROXY_WATERMARK_OPACITY is imgproxy's base opacity; thumbor's alpha is the whole say.
            let plan = try RenderPlan(
                options, limits: configuration.limits, watermarkOpacity: grammar == .imgproxy ? configuration.watermarkOpacity : 1)
            if case .failure(let refusal) = Result(catching: { () throws(MagpieError) in try configuration.sources.check(source) }) {
                throw ProxyURLError.forbidden(refusal.description)
            }
            let (mark, pendingMark) = try watermarkMark(options.watermark)
            // A mark to fetch or draw is not needed to name the result, only to make it: the key
            // is made with its identifier on a stand-in, so a memory hit costs no fetch.
            let imageRequest = plan.imageRequest(
                for: source, mark: mark ?? pendingMark.map { .init(identifier: markIdentifier($0), image: Self.markStandIn) })
            let encoding = FormatNegotiation.encoding(
                for: options.format, accept: request.headers["accept"], quality: options.quality ?? configuration.defaultQuality,
                formatQuality: configuration.formatQuality.merging(options.formatQuality) { $1 }, maximumBytes: options.maximumBytes,
                keepsCopyright: options.keepsCopyright)
            let key = pipeline.configuration.encodedImageKey(for: imageRequest, encoding: encoding)
            let work = Work(
                reply: reply, request: imageRequest, pendingMark: pendingMark, plan: plan, encoding: encoding,
                servesSourceAlways: options.raw, servesSourceIn: options.skipProcessing,
                filename: options.filename ?? sourceStem, attachment: options.returnAttachment,
                sourceKey: pipeline.configuration.cacheKey(source), variant: key.variant,
                varies: options.format == .auto, cacheTag: Validators.cacheTag(for: source))
            if work.servesImage, let hit = pipeline.cachedEncodedImage(for: key) {
                metrics.cacheHit(.memory)
                return .answered((success(hit, work: work, request: request), StageTimings(), "memory"))
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
        var work = work
        do {
            // Everything below is the request's cost (fetches, decodes, marks, hashes): it is
            // admitted first. Only a request joining an image already being made takes no slot.
            let joins = work.servesImage && pipeline.isEncoding(work.request, encoding: work.encoding)
            if !joins {
                let queued = ContinuousClock.now
                guard case .admitted = try await admission.enter() else {
                    var response = failure(503, "busy: every processing slot and queue place is taken")
                    response.headers.append(("Retry-After", "1"))
                    return (response, timings, nil)
                }
                timings.add(ContinuousClock.now - queued, to: .queue)
            }
            defer { if !joins { admission.leave() } }
            switch work.reply {
            case .image: break
            case .info(let asked):
                let original = try await timings.measure(.download) { () throws(MagpieError) in try await pipeline.data(for: work.request) }
                let body = try await SourceDescription.info(of: original.data, request: work.request, asked: asked, pipeline: pipeline)
                return (description(body), timings, nil)
            case .meta(let options):
                let original = try await timings.measure(.download) { () throws(MagpieError) in try await pipeline.data(for: work.request) }
                let source = work.request.url
                let body = try await pipeline.runOnDecodingThreads { () throws(MagpieError) in
                    try SourceDescription.meta(of: original.data, source: source, options: options)
                }
                return (description(body), timings, nil)
            }
            if work.servesSourceAlways || !work.servesSourceIn.isEmpty {
                let original = try await timings.measure(.download) { () throws(MagpieError) in try await pipeline.data(for: work.request) }
                let format = ImageFormat(sniffing: original.data)
                if work.servesSourceAlways || work.servesSourceIn.contains(format) {
                    return (try await sourceAsItIs(original, format: format, work: work, request: request), timings, nil)
                }
            }
            if let ifNoneMatch = request.headers["if-none-match"] {
                // A conditional request for a result no memory holds: the original's validator
                // decides, so a client that has this version costs no decoding.
                let original = try await timings.measure(.download) { () throws(MagpieError) in try await pipeline.data(for: work.request) }
                let etag = work.etag(sourceValidator: try await sourceValidator(of: original))
                if Validators.matches(ifNoneMatch, etag) { return (notModified(etag: etag, work: work), timings, nil) }
            }
            if let pending = work.pendingMark {
                let mark: ImageProcessors.Watermark.Mark
                switch await markImage(pending) {
                case .success(let made): mark = made
                case .failure(.drawing(let reason)): return (failure(400, "the watermark's text cannot be drawn: \(reason)"), timings, nil)
                case .failure(.loading(let error)): throw error
                }
                work.request = work.plan.imageRequest(for: work.request.url, mark: mark)
            }
            let metrics = self.metrics
            let encoded = try await pipeline.encodedImage(for: work.request, encoding: work.encoding) { metrics.joined() }
            if let cache = encoded.cache { metrics.cacheHit(cache) } else { metrics.cacheMiss() }
            timings.merge(encoded.timings)
            return (success(encoded, work: work, request: request), timings, encoded.cache?.rawValue)
        } catch let error as MagpieError {
            let aboutSource = error.stage == .fetch || error.stage == .decode
            return (failure(FailureResponse.status(for: error), error.description, aboutSource: aboutSource), timings, nil)
        } catch {
            // Only the admission queue throws something else: the request was cancelled there.
            return (failure(FailureResponse.status(for: .cancelled), MagpieError.cancelled.description), timings, nil)
        }
    }

    /// The original's validator: its ETag or Last-Modified, else a digest of its bytes, taken
    /// on the decoding threads (a 64 MB body takes a tenth of a second to hash).
    private func sourceValidator(of original: DataResponse) async throws(MagpieError) -> String {
        if let validator = EncodedImage.validator(fromMetadata: original.metadata) { return validator }
        return try await pipeline.runOnDecodingThreads { () throws(MagpieError) in
            EncodedImage.validator(of: original.data, metadata: original.metadata)
        }
    }

    /// Which grammar a path is written in, and the path without a mount prefix. With prefixes
    /// configured, a path under neither is not found.
    private func grammar(of path: String) throws(ProxyURLError) -> (URLGrammar, String) {
        for (prefix, grammar) in [(configuration.imgproxyPathPrefix, URLGrammar.imgproxy), (configuration.thumborPathPrefix, .thumbor)] {
            guard let prefix, !prefix.isEmpty else { continue }
            if path.hasPrefix(prefix + "/") { return (grammar, String(path.dropFirst(prefix.count))) }
        }
        if configuration.imgproxyPathPrefix != nil || configuration.thumborPathPrefix != nil {
            throw ProxyURLError(status: 404, message: "no image URL is served under this path")
        }
        return (URLGrammar(path), path)
    }

    // MARK: - Watermarks

    /// The longest side a fetched mark keeps: 16 MB of pixels at most.
    static let markSide = 2048

    /// A 1x1 transparent pixel: the mark's pixels in a request only used for its key.
    private static let markStandIn = DecodedImage(width: 1, height: 1, pixels: [0, 0, 0, 0])

    /// The mark ready now (the operator's image), or the one to fetch or draw when answering.
    private func watermarkMark(_ watermark: WatermarkOptions?) throws(ProxyURLError) -> (ImageProcessors.Watermark.Mark?, WatermarkOptions.Mark?) {
        guard let watermark else { return (nil, nil) }
        switch watermark.mark {
        case .configured:
            if let mark = configuration.watermark { return (mark, nil) }
            if let url = configuration.watermarkURL { return (nil, .url(url)) }
            throw .malformed("the URL asks for the operator's watermark, and none is configured (IMGPROXY_WATERMARK_PATH)")
        case .url(let url):
            if case .failure(let refusal) = Result(catching: { () throws(MagpieError) in try configuration.sources.check(url) }) {
                throw .forbidden("the watermark: \(refusal.description)")
            }
            return (nil, watermark.mark)
        case .text:
            return (nil, watermark.mark)
        }
    }

    private func markIdentifier(_ mark: WatermarkOptions.Mark) -> String {
        switch mark {
        case .configured: "configured"
        // The bound a fetched mark is shrunk to is part of what it looks like.
        case .url(let url): "url:" + pipeline.configuration.cacheKey(url) + "#within:\(Self.markSide)"
        case .text(let text): ImageProcessors.Watermark.Mark.textIdentifier(text)
        }
    }

    /// Why a mark could not be made: its text (the URL's fault, a 400) or its image.
    private enum MarkFailure: Error {
        case drawing(String)
        case loading(MagpieError)
    }

    /// Fetches (through the pipeline and its caches, under the source rules) or draws a mark,
    /// once the request is admitted: an image mark is decoded on the decoding threads within
    /// the decode budget like any source; a text mark is drawn there too, within the budget for
    /// the area its markup may cover. Both are kept in ``marks`` by their identifier (a text
    /// mark's is its markup's digest).
    private func markImage(_ mark: WatermarkOptions.Mark) async -> Result<ImageProcessors.Watermark.Mark, MarkFailure> {
        let identifier = markIdentifier(mark)
        let key = ImageCacheKey(dataKey: "magpie-mark:" + identifier, thumbnail: nil)
        if let kept = marks[key] { return .success(.init(identifier: identifier, image: kept)) }
        let made: ImageProcessors.Watermark.Mark
        switch mark {
        case .url(let url):
            do {
                // A mark larger than this is shrunk to fit while it decodes: it is laid on a
                // result of at most the output limit, and held while that result is made. Only
                // its original bytes are kept on disk: a variant is JPEG when opaque, and a
                // mark's edges would come back blurred by it.
                let bound = ImageRequest.Thumbnail(width: Self.markSide, height: Self.markSide, fit: .fit)
                var request = ImageRequest(url: url, thumbnail: bound, options: [.firstFrameOnly])
                request.diskCachePolicy = .originals
                made = .init(identifier: identifier, image: try await pipeline.image(for: request).container.image)
            } catch {
                return .failure(.loading(error))
            }
        case .configured:
            // Resolved to the operator's image or URL before any work is pending.
            return .failure(.loading(.processingFailed(processor: "magpie.watermark", reason: "no watermark is configured")))
        case .text(let text):
            do {
                let markup = try ImageProcessors.Watermark.Mark.checkText(text)
                // Pango and cairo hold the text as ARGB, then libvips copies it out: about
                // three copies of four bytes a pixel.
                made = try await pipeline.runOnDecodingThreads(memory: markup.estimatedPixels * 12) { () throws(MagpieError) in
                    try ImageProcessors.Watermark.Mark.text(text)
                }
            } catch .cancelled {
                return .failure(.loading(.cancelled))
            } catch .processingFailed(_, let reason) {
                return .failure(.drawing(reason))
            } catch {
                return .failure(.drawing(error.description))
            }
        }
        marks.store(made.image, for: key)
        return .success(made)
    }

    private func checkThumborSignature(_ signature: String, for signedPart: String) throws(ProxyURLError) {
        if signature == "unsafe" {
            guard configuration.allowsUnsignedURLs else { throw .forbidden("unsigned URLs are not accepted here") }
            return
        }
        guard thumborSigner.isValid(signature, for: signedPart) else { throw .forbidden("the signature does not match the URL") }
    }

    /// With keys, only a valid signature (or, when unsigned URLs are allowed, `unsafe` or `_`);
    /// without keys and with unsigned URLs allowed, any segment, as imgproxy without a key.
    private func checkSignature(_ signature: String, for signedPart: String) throws(ProxyURLError) {
        if signer.keys.isEmpty {
            guard configuration.allowsUnsignedURLs else { throw .forbidden("unsigned URLs are not accepted here") }
            return
        }
        if signature == "unsafe" || signature == "_" {
            guard configuration.allowsUnsignedURLs else { throw .forbidden("unsigned URLs are not accepted here") }
            return
        }
        guard signer.isValid(signature, for: signedPart) else {
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

    private func success(_ encoded: EncodedImage, work: Work, request: ProxyRequest) -> ProxyResponse {
        let etag = work.etag(sourceValidator: encoded.sourceValidator)
        if Validators.matches(request.headers["if-none-match"], etag) { return notModified(etag: etag, work: work) }
        var headers: [(name: String, value: String)] = [
            ("Content-Type", encoded.format.mediaType), ("Cache-Control", imageCacheControl), ("ETag", etag),
            ("Cache-Tag", work.cacheTag), ("Surrogate-Key", work.cacheTag),
        ]
        if let lastModified = encoded.sourceLastModified { headers.append(("Last-Modified", lastModified)) }
        if work.varies { headers.append(("Vary", "Accept")) }
        headers.append(("Content-Disposition", Self.contentDisposition(work, format: encoded.format)))
        metrics.served(format: encoded.format.rawValue)
        return ProxyResponse(status: 200, headers: headers, body: encoded.data)
    }

    private func description(_ body: [UInt8]) -> ProxyResponse {
        ProxyResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", imageCacheControl)], body: body)
    }

    /// The source's bytes as the origin sent them (`raw`, `skip_processing`), when they are an
    /// image Magpie knows by their content: whatever the origin calls it, nothing else (an
    /// HTML page, a script) is served from the proxy's domain; an SVG is sanitised first
    /// (``SVGSanitizer``). The policy header keeps a browser from running anything served.
    private func sourceAsItIs(
        _ original: DataResponse, format: ImageFormat, work: Work, request: ProxyRequest
    ) async throws(MagpieError) -> ProxyResponse {
        guard format != .unknown else {
            throw .unsupportedFormat("the source is not an image Magpie knows (\(original.contentType ?? "no Content-Type")), and only images are served")
        }
        let etag = work.etag(sourceValidator: try await sourceValidator(of: original))
        if Validators.matches(request.headers["if-none-match"], etag) { return notModified(etag: etag, work: work) }
        var body = original.data
        if format == .svg {
            body = try await pipeline.runOnDecodingThreads { () throws(MagpieError) in try SVGSanitizer.sanitized(original.data) }
        }
        var headers: [(name: String, value: String)] = [
            ("Content-Type", format.mediaType), ("Cache-Control", imageCacheControl), ("ETag", etag),
            ("Cache-Tag", work.cacheTag), ("Surrogate-Key", work.cacheTag),
            ("Content-Disposition", Self.contentDisposition(work, format: format)),
            ("Content-Security-Policy", Self.passThroughPolicy),
        ]
        if let lastModified = original.metadata?.lastModified { headers.append(("Last-Modified", lastModified)) }
        metrics.served(format: format.rawValue)
        return ProxyResponse(status: 200, headers: headers, body: body)
    }

    /// Nothing in a served source may run or reach out: no scripts, no fetches, a sandbox.
    static let passThroughPolicy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'none'; sandbox"

    /// `inline` or `attachment`, with the file name and the format's extension, as imgproxy
    /// sends it.
    private static func contentDisposition(_ work: Work, format: ImageFormat) -> String {
        let name = work.filename + (format == .unknown ? "" : "." + (format.fileExtensions.first ?? format.rawValue))
        return ContentDisposition.value(attachment: work.attachment, filename: name)
    }

    private func notModified(etag: String, work: Work) -> ProxyResponse {
        var headers: [(name: String, value: String)] = [
            ("Cache-Control", imageCacheControl), ("ETag", etag), ("Cache-Tag", work.cacheTag), ("Surrogate-Key", work.cacheTag),
        ]
        if work.varies { headers.append(("Vary", "Accept")) }
        return ProxyResponse(status: 304, headers: headers, body: [])
    }

    /// An error response. Errors of the URL itself (a bad option, a signature, a limit) and of
    /// the proxy (overload, timeouts, its own faults) are `no-store`: the next request may
    /// differ. What an origin said of its source (gone, not an image, too large, failing) is
    /// the same for every client, so it is kept for ``ProxyConfiguration/errorMaxAge`` on
    /// purpose: a burst of requests for one broken source does not each reach the origin, and a
    /// mended source shows within seconds.
    private func failure(_ status: Int, _ message: String, aboutSource: Bool = false) -> ProxyResponse {
        let keptBriefly = aboutSource && [404, 422, 502].contains(status)
        let cacheControl = keptBriefly ? "public, max-age=\(configuration.errorMaxAge.components.seconds)" : "no-store"
        return ProxyResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", cacheControl)],
            body: Array((message + "\n").utf8))
    }

    private static func pathOnly(_ target: String) -> String {
        let bytes = target.utf8
        return String(target[..<(bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex)])
    }

    private static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// A configuration the proxy cannot run with.
public struct ProxyConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
