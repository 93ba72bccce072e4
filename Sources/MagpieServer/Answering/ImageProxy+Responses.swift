import Foundation
import Magpie
import Synchronization

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

/// The headers a URL's result is answered with, built once and reused while the result stays
/// the same: a hot URL's work is read once (``ReadURLs``), and without this each of its memory
/// hits hashed its ETag and wrote its caching, disposition and validator headers again, a third
/// of what the hit cost. Shared by every copy of the work; what the request itself adds (its
/// id, its timing) is added after.
final class ResultHeaders: Sendable {
    /// What of a result its headers are made of, besides the URL's work.
    struct Result: Equatable, Sendable {
        let format: ImageFormat
        let sourceValidator: String
        let sourceLastModified: String?
        let sourceCacheControl: String?
        let encodedAt: Date?

        init(_ encoded: EncodedImage) {
            format = encoded.format
            sourceValidator = encoded.sourceValidator
            sourceLastModified = encoded.sourceLastModified
            sourceCacheControl = encoded.sourceCacheControl
            encodedAt = encoded.encodedAt
        }
    }

    struct Built: Sendable {
        let validators: AnswerValidators
        let headers: [(name: String, value: String)]
    }

    private let last = Mutex<(result: Result, built: Built)?>(nil)

    /// The headers for `encoded`: those built last when it is the same result, else `build`'s.
    func headers(for encoded: EncodedImage, build: () -> Built) -> Built {
        let result = Result(encoded)
        if let kept = last.withLock({ $0 }), kept.result == result { return kept.built }
        let built = build()
        last.withLock { $0 = (result, built) }
        return built
    }
}

/// `Content-Disposition` as RFC 6266 writes it: the name as a quoted string, escaped, and, when
/// the name is not ASCII, the name in UTF-8 as `filename*` too (RFC 8187).
enum ContentDisposition {
    static func value(attachment: Bool, filename: String) -> String {
        // Byte by byte: this runs for every response, memory hits included.
        var value = Array((attachment ? "attachment" : "inline").utf8) + Array("; filename=\"".utf8)
        var ascii = true
        for byte in filename.utf8 {
            switch byte {
            // Control characters would split the header.
            case 0..<0x20, 0x7F: continue
            // A quote would end the string; imgproxy writes it %22, which every client reads.
            case UInt8(ascii: "\""): value += Array("%22".utf8)
            // A backslash escapes the next character in a quoted string: escaped itself.
            case UInt8(ascii: "\\"): value += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x80...:
                // As imgproxy sends it (browsers read the quoted name as UTF-8), with the name
                // again in `filename*`, the form RFC 6266 defines for it.
                ascii = false
                value.append(byte)
            default: value.append(byte)
            }
        }
        value.append(UInt8(ascii: "\""))
        if !ascii {
            value += Array("; filename*=UTF-8''".utf8)
            for byte in filename.utf8 where byte >= 0x20 && byte != 0x7F {
                if isAttributeCharacter(byte) {
                    value.append(byte)
                } else {
                    value += [UInt8(ascii: "%"), hexDigit(byte >> 4), hexDigit(byte & 0x0F)]
                }
            }
        }
        return String(decoding: value, as: UTF8.self)
    }

    /// RFC 8187's `attr-char`: what may stand unencoded in an extended value.
    private static func isAttributeCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$&+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
