import Foundation
import Magpie

/// Reading a request: its grammar, its signature (checked before anything it covers is read),
/// its options and source.
extension ImageProxy {
    func prepare(_ request: ProxyRequest) -> Preparation {
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
                grammar: grammar, reply: reply, request: imageRequest, pendingMark: pendingMark, plan: plan, encoding: encoding,
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
        return (URLGrammar(path), path)
    }


    /// thumbor's check, with thumbor's status: a missing, unsafe-but-not-allowed or wrong
    /// signature is a 400 (its handler's "Malformed URL"), where imgproxy's URLs get a 403.
    func checkThumborSignature(_ signature: String, for signedPart: String) throws(ProxyURLError) {
        if signature == "unsafe" {
            guard configuration.allowsUnsignedURLs else { throw .malformed("unsigned URLs are not accepted here") }
            return
        }
        guard thumborSigner.isValid(signature, for: signedPart) else { throw .malformed("the signature does not match the URL") }
    }

    /// With keys, only a valid signature (or, when unsigned URLs are allowed, `unsafe` or `_`);
    /// without keys and with unsigned URLs allowed, any segment, as imgproxy without a key.
    func checkSignature(_ signature: String, for signedPart: String) throws(ProxyURLError) {
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
}
