import Foundation
import Magpie

/// The proxy's answers: images with their caching headers, pass-through sources, 304s and errors.
extension ImageProxy {
    /// The server's caching, or the URL's own `max_age` (thumbor's), which has no
    /// `stale-while-revalidate`: it is the URL's whole say. Between the two, the source's own
    /// caching when the operator passes it on (``ProxyConfiguration/passesSourceCacheControl``).
    func imageCacheControl(_ work: Work, source: String? = nil) -> String {
        if let maxAge = work.maxAge { return maxAge == 0 ? "no-cache" : "public, max-age=\(maxAge)" }
        if configuration.passesSourceCacheControl, let source { return source }
        var value = "public, max-age=\(configuration.cacheMaxAge.components.seconds)"
        if configuration.staleWhileRevalidate > .zero {
            value += ", stale-while-revalidate=\(configuration.staleWhileRevalidate.components.seconds)"
        }
        return value
    }

    func success(_ encoded: EncodedImage, work: Work, request: ProxyRequest) -> ProxyResponse {
        let built = work.resultHeaders.headers(for: encoded) {
            let validators = configuration.validation.validators(
                sourceETag: encoded.sourceETag, sourceLastModified: encoded.sourceLastModified, resultMade: encoded.encodedAt,
                derivedTag: work.etag(sourceValidator: encoded.sourceValidator))
            var headers: [(name: String, value: String)] = [
                ("Content-Type", encoded.format.mediaType), ("Cache-Control", imageCacheControl(work, source: encoded.sourceCacheControl)),
                ("Cache-Tag", work.cacheTag), ("Surrogate-Key", work.cacheTag),
            ]
            headers += Self.fields(of: validators)
            if work.varies { headers.append(("Vary", "Accept")) }
            headers.append(("Content-Disposition", Self.contentDisposition(work, format: encoded.format)))
            if !work.skipped.isEmpty { headers.append((SkippedOptions.header, SkippedOptions.value(work.skipped))) }
            if let origin = configuration.allowedOrigin { headers.append(("Access-Control-Allow-Origin", origin)) }
            return ResultHeaders.Built(validators: validators, headers: headers)
        }
        if configuration.validation.isCurrent(request.headers, built.validators) {
            return notModified(built.validators, work: work, sourceCacheControl: encoded.sourceCacheControl)
        }
        metrics.served(format: encoded.format)
        return ProxyResponse(status: 200, headers: built.headers, body: encoded.data)
    }

    func description(_ body: [UInt8], work: Work) -> ProxyResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Cache-Control", imageCacheControl(work))]
        if let origin = configuration.allowedOrigin { headers.append(("Access-Control-Allow-Origin", origin)) }
        return ProxyResponse(status: 200, headers: headers, body: body)
    }

    /// The source's bytes as the origin sent them (`raw`, `skip_processing`), when they are an
    /// image Magpie knows by their content: whatever the origin calls it, nothing else (an
    /// HTML page, a script) is served from the proxy's domain; an SVG is sanitised first
    /// (``SVGSanitizer``). The policy header keeps a browser from running anything served.
    func sourceAsItIs(
        _ original: DataResponse, format: ImageFormat, work: Work, request: ProxyRequest
    ) async throws(MagpieError) -> ProxyResponse {
        guard format != .unknown else {
            throw .unsupportedFormat("the source is not an image Magpie knows (\(original.contentType ?? "no Content-Type")), and only images are served")
        }
        let validators = try await validators(of: original, work: work)
        if configuration.validation.isCurrent(request.headers, validators) {
            return notModified(validators, work: work, sourceCacheControl: original.metadata?.cacheControl)
        }
        var body = original.data
        if format == .svg {
            body = try await pipeline.runOnDecodingThreads { () throws(MagpieError) in try SVGSanitizer.sanitized(original.data) }
        }
        var headers: [(name: String, value: String)] = [
            ("Content-Type", format.mediaType), ("Cache-Control", imageCacheControl(work, source: original.metadata?.cacheControl)),
            ("Cache-Tag", work.cacheTag), ("Surrogate-Key", work.cacheTag),
            ("Content-Disposition", Self.contentDisposition(work, format: format)),
            ("Content-Security-Policy", Self.passThroughPolicy),
        ]
        headers += Self.fields(of: validators)
        if let origin = configuration.allowedOrigin { headers.append(("Access-Control-Allow-Origin", origin)) }
        metrics.served(format: format)
        return ProxyResponse(status: 200, headers: headers, body: body)
    }

    /// Nothing in a served source may run or reach out: no scripts, no fetches, a sandbox.
    static let passThroughPolicy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'none'; sandbox"

    /// `inline` or `attachment`, with the file name and the format's extension, as imgproxy
    /// sends it.
    static func contentDisposition(_ work: Work, format: ImageFormat) -> String {
        let name = work.filename + (format == .unknown ? "" : "." + (format.fileExtensions.first ?? format.rawValue))
        return ContentDisposition.value(attachment: work.attachment, filename: name)
    }

    /// The validators of an answer made from `original`.
    func validators(of original: DataResponse, work: Work) async throws(MagpieError) -> AnswerValidators {
        let derived = configuration.validation.etags == .derived ? work.etag(sourceValidator: try await sourceValidator(of: original)) : ""
        return configuration.validation.validators(
            sourceETag: original.metadata?.etag, sourceLastModified: original.metadata?.lastModified, derivedTag: derived)
    }

    static func fields(of validators: AnswerValidators) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if let etag = validators.etag { fields.append(("ETag", etag)) }
        if let lastModified = validators.lastModified { fields.append(("Last-Modified", lastModified)) }
        return fields
    }

    func notModified(_ validators: AnswerValidators, work: Work, sourceCacheControl: String?) -> ProxyResponse {
        var headers: [(name: String, value: String)] = [
            ("Cache-Control", imageCacheControl(work, source: sourceCacheControl)), ("Cache-Tag", work.cacheTag), ("Surrogate-Key", work.cacheTag),
        ]
        headers += Self.fields(of: validators)
        if work.varies { headers.append(("Vary", "Accept")) }
        if let origin = configuration.allowedOrigin { headers.append(("Access-Control-Allow-Origin", origin)) }
        return ProxyResponse(status: 304, headers: headers, body: [])
    }

    /// An error response. Errors of the URL itself (a bad option, a signature, a limit) and of
    /// the proxy (overload, timeouts, its own faults) are `no-store`: the next request may
    /// differ. What an origin said of its source (gone, not an image, too large, failing) is
    /// the same for every client, so it is kept for ``ProxyConfiguration/errorMaxAge`` on
    /// purpose: a burst of requests for one broken source does not each reach the origin, and a
    /// mended source shows within seconds.
    func failure(_ status: Int, _ message: String, aboutSource: Bool = false) -> ProxyResponse {
        let keptBriefly = aboutSource && [404, 422, 502].contains(status)
        let cacheControl = keptBriefly ? "public, max-age=\(configuration.errorMaxAge.components.seconds)" : "no-store"
        return ProxyResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", cacheControl)],
            body: Array((message + "\n").utf8))
    }

    static func pathOnly(_ target: String) -> String {
        let bytes = target.utf8
        return String(target[..<(bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex)])
    }

    static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
