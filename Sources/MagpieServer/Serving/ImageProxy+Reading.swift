import Foundation
import Magpie

/// Reading a request: its grammar reads the signature, options and source; the rest (source
/// rules, the render plan, the encoding and the cache key) is the same for every grammar.
extension ImageProxy {
    func prepare(_ request: ProxyRequest) -> Preparation {
        let known = ReadURLs.key(request)
        if let known, let work = readURLs.work(for: known) { return lookInMemory(work, request) }
        let grammar: any ProxyGrammar, pathOnly: String
        do throws(ProxyURLError) {
            let kind: URLGrammar
            (kind, pathOnly) = try self.grammar(of: Self.pathOnly(request.path))
            grammar = grammars.for(kind)
        } catch {
            return .answered((failure(error.status, error.message), StageTimings(), nil))
        }
        do throws(ProxyURLError) {
            let url = try grammar.read(pathOnly)
            var (options, source, skipped) = (url.options, url.source, url.skipped)
            if case .configured = options.watermark?.mark, configuration.watermark == nil, configuration.watermarkURL == nil {
                // imgproxy draws nothing where it has no watermark: so does Magpie, and says so.
                options.watermark = nil
                skipped.append("watermark: no watermark is configured (IMGPROXY_WATERMARK_PATH), so none is laid")
            }
            let plan = RenderPlan(
                options, limits: configuration.limits, watermarkOpacity: grammar.watermarkOpacity, preservesHighDepth: grammar.preservesHighDepth)
            // The pipeline's policy is the operator's `sources`.
            let sources = pipeline.configuration.sourcePolicy
            if case .failure(let refusal) = Result(catching: { () throws(MagpieError) in try sources.check(source) }) {
                throw ProxyURLError.sourceNotAllowed(refusal.description)
            }
            let (mark, pendingMark) = try options.watermark.map { watermark throws(ProxyURLError) in try watermarkMark(watermark) } ?? (nil, nil)
            if let frame = options.frame, case .failure(let refusal) = Result(catching: { () throws(MagpieError) in try sources.check(frame) }) {
                throw ProxyURLError.sourceNotAllowed("the frame: \(refusal.description)")
            }
            // A mark to fetch or draw is not needed to name the result, only to make it: the key
            // is made with its identifier on a stand-in, so a memory hit costs no fetch.
            let imageRequest = plan.imageRequest(
                for: source, mark: mark ?? pendingMark.map { .init(identifier: markIdentifier($0), image: Self.markStandIn) })
            let encoding = FormatNegotiation.encoding(
                for: options.format, accept: request.headers["accept"], quality: options.quality ?? configuration.defaultQuality,
                formatQuality: configuration.formatQuality.merging(options.formatQuality) { $1 }, maximumBytes: options.maximumBytes,
                keepsCopyright: options.keepsCopyright, opaquePNGAsJPEG: options.opaquePNGAsJPEG,
                sourceFormats: options.sourceFormats)
            let work = Work(
                grammar: grammar, reply: url.reply, skipped: skipped, maxAge: options.maxAge, sourceByteLimit: options.limits.sourceBytes, request: imageRequest, readyMark: mark, pendingMark: pendingMark, pendingFrame: options.frame, plan: plan, encoding: encoding,
                servesSourceAlways: options.raw, servesSourceIn: options.skipProcessing.union(grammar.passesSVGThrough(options, source: source) ? [.svg] : []),
                filename: options.filename ?? url.sourceStem, attachment: options.returnAttachment,
                prepared: pipeline.prepare(imageRequest, encoding: encoding),
                varies: options.format?.negotiates ?? false, cacheTag: Validators.cacheTag(for: source))
            if let known, options.expires == nil, options.watermark == nil { readURLs.keep(work, for: known) }
            return lookInMemory(work, request)
        } catch {
            return .answered((failure(grammar.status(for: error), error.message), StageTimings(), nil))
        }
    }

    /// Answers from the memory cache when it holds the result.
    private func lookInMemory(_ work: Work, _ request: ProxyRequest) -> Preparation {
        if work.servesImage, let hit = pipeline.cachedEncodedImage(for: work.prepared.storedKey) {
            metrics.cacheHit(.memory)
            return .answered((success(hit, work: work, request: request), StageTimings(), "memory"))
        }
        return .needsWork(work)
    }

    /// `path` (without its query) as a trace records it: its grammar's reading with the source
    /// `REDACTED`, below the mount prefix as written; a path no grammar serves, wholly.
    func redacted(_ path: String) -> String {
        if grammars.healthCheck(at: Substring(path)) != nil { return path }
        guard let (kind, below) = try? grammar(of: path) else { return "REDACTED" }
        return path.dropLast(below.count) + grammars.for(kind).redacted(below)
    }

    /// Which grammar a path is written in, and the path without a mount prefix. With prefixes
    /// configured, a path under neither is not found.
    func grammar(of path: String) throws(ProxyURLError) -> (URLGrammar, String) {
        for (prefix, grammar) in [(configuration.imgproxyPathPrefix, URLGrammar.imgproxy), (configuration.thumborPathPrefix, .thumbor)] {
            guard let prefix, !prefix.isEmpty else { continue }
            if path.hasPrefix(prefix + "/") { return (grammar, String(path.dropFirst(prefix.count))) }
        }
        if configuration.imgproxyPathPrefix != nil || configuration.thumborPathPrefix != nil {
            throw ProxyURLError(status: 404, message: "no image URL is served under this path")
        }
        return (URLGrammar(path, rules: configuration.imgproxyURLRules), path)
    }
}

/// What the proxy asks the pipeline to encode: `f:` names a format, `f:auto` lets the pipeline
/// choose from the client's `Accept`, the operator's automatic formats choose in its order, and
/// no format writes the source's as the grammar says. Transparency in a
/// JPEG shows white, as imgproxy's does.
enum FormatNegotiation {
    static func encoding(
        for format: ProxyOptions.Format?, accept: String?, quality: Int, formatQuality: [ImageFormat: Int] = [:], maximumBytes: Int? = nil,
        keepsCopyright: Bool = false, opaquePNGAsJPEG: Bool = false, sourceFormats: [ImageFormat: ImageFormat] = EncodingRequest.webSourceFormats
    ) -> EncodingRequest {
        let choice: EncodingRequest.Format =
            switch format {
            case .fixed(let format): .fixed(format)
            case .auto: .negotiated(accepting: accepted(accept))
            case .automatic(let rule): .preferred(rule.preference(accept: accept))
            case nil: .source
            }
        var encoding = EncodingRequest(
            format: choice, quality: quality, formatQuality: formatQuality, background: .white, maximumBytes: maximumBytes,
            keepsCopyright: keepsCopyright)
        encoding.opaquePNGAsJPEG = opaquePNGAsJPEG
        encoding.sourceFormats = sourceFormats
        return encoding
    }

    /// The formats Magpie writes that an `Accept` header lists with a quality above zero
    /// (`image/svg+xml` or `image/heic` there choose nothing).
    static func accepted(_ header: String?) -> Set<ImageFormat> {
        let ranges = AutomaticFormat.mediaRanges(header)
        return Set(ImageFormat.encodable.filter { (ranges[$0.mediaType] ?? 0) > 0 })
    }
}
