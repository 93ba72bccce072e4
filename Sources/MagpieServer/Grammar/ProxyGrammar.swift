import Foundation
import Magpie

/// One URL grammar the proxy answers: how its paths are signed and read into options, which
/// endpoints its server has, and the status its server gives each failure. imgproxy's
/// (``ImgproxyGrammar``) and thumbor's (``ThumborGrammar``) are the two; the proxy tells which a
/// path is written in (``URLGrammar``) and treats what the grammar read alike from there on.
protocol ProxyGrammar: Sendable {
    var kind: URLGrammar { get }

    /// Reads `path` (below any mount prefix, with its query): the signature is checked over what
    /// it covers before anything it covers is read.
    func read(_ path: String) throws(ProxyURLError) -> ProxyURL

    /// The status a failure to make the image is answered with, as this grammar's server answers it.
    func status(for error: MagpieError) -> Int

    /// The status when the watermark a URL names cannot be loaded.
    func status(forMark error: MagpieError) -> Int

    /// The status a URL that is not accepted is answered with, as this grammar's server answers it.
    func status(for error: ProxyURLError) -> Int

    /// The operator's watermark opacity, multiplying the URL's.
    var watermarkOpacity: Double { get }

    /// Health-check paths this grammar's clients and load balancers ask, each with the body a
    /// healthy server answers.
    var healthChecks: [String: String] { get }

    /// Whether results keep more than 8 bits a sample where the source has them.
    var preservesHighDepth: Bool { get }

    /// Whether an SVG source of `options` at `source` is passed through, sanitised, instead of
    /// drawn.
    func passesSVGThrough(_ options: ProxyOptions, source: URL) -> Bool

    /// `path` (below any mount prefix, without its query) as a trace records it: the signature
    /// and options kept, the source `REDACTED`, as OpenTelemetry asks of what may carry
    /// credentials (a source URL can hold a password, a presigned query, a private host).
    func redacted(_ path: String) -> String
}

extension ProxyGrammar {
    /// As any failure to load, by default.
    func status(forMark error: MagpieError) -> Int { status(for: error) }

    /// No, by default: thumbor writes 8 bits a sample.
    var preservesHighDepth: Bool { false }

    /// Only when the URL asks for SVG, by default.
    func passesSVGThrough(_ options: ProxyOptions, source: URL) -> Bool {
        if case .fixed(.svg) = options.format { return true }
        return false
    }
}

/// A proxy URL as its grammar read it: what to make, from what, and what was left out.
struct ProxyURL: Sendable {
    /// An image, or JSON about the source.
    enum Reply: Sendable {
        case image
        /// imgproxy's `/info`.
        case info(InfoOptions)
        /// thumbor's `meta/`, for these options.
        case meta(ProxyOptions)
    }

    var options: ProxyOptions
    let source: URL
    /// The name a browser saves the result under when the URL names none.
    let sourceStem: String
    var reply = Reply.image
    /// What the URL asked for that the grammar skips rather than refuses (thumbor skips a filter
    /// it cannot apply), each with why: the answer says so in a header and the log.
    var skipped: [String] = []
}

/// The grammars one proxy answers.
struct Grammars: Sendable {
    let imgproxy: ImgproxyGrammar
    let thumbor: ThumborGrammar
    /// Every grammar's health-check paths with their healthy bodies, gathered once: every
    /// request's path is looked up here before it is read as an image URL.
    let healthChecks: [String: String]
    /// The longest of them, in bytes: a longer path is not looked up.
    let longestHealthCheck: Int

    init(imgproxy: ImgproxyGrammar, thumbor: ThumborGrammar) {
        self.imgproxy = imgproxy
        self.thumbor = thumbor
        healthChecks = imgproxy.healthChecks.merging(thumbor.healthChecks) { first, _ in first }
        longestHealthCheck = healthChecks.keys.map(\.utf8.count).max() ?? 0
    }

    /// The healthy body of the health check at `path`, `nil` when it is none.
    func healthCheck(at path: Substring) -> String? {
        path.utf8.count <= longestHealthCheck ? healthChecks[String(path)] : nil
    }

    func `for`(_ kind: URLGrammar) -> any ProxyGrammar {
        switch kind {
        case .imgproxy: imgproxy
        case .thumbor: thumbor
        }
    }
}

/// The two URL grammars the proxy answers on one port, told apart by their form.
enum URLGrammar: Sendable, Hashable {
    case imgproxy
    case thumbor

    /// A thumbor signature is URL-safe base64 of 20 bytes with its padding (28 characters ending
    /// in `=`), which imgproxy's unpadded ones never are; a first segment imgproxy could not
    /// have signed (padded, or not base64) is thumbor's too. After `unsafe`, an imgproxy URL's
    /// source is `plain/…` or base64 of an http(s) URL, following option segments that hold a
    /// colon (or `%3A`); anything else is thumbor's. Only the signature is looked at unless it is `unsafe`:
    /// this runs for every request, memory hits included.
    /// `rules` are how imgproxy's URLs are written here: their separator marks option segments,
    /// and a base64 source is read as their replacements and base make it.
    init(_ path: String, rules: ImgproxyURLRules = ImgproxyURLRules()) {
        let bytes = path.utf8
        let start = bytes.first == UInt8(ascii: "/") ? bytes.index(after: bytes.startIndex) : bytes.startIndex
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
        let signature = bytes[start..<end]
        if signature.count == 28, signature.last == UInt8(ascii: "=") {
            self = .thumbor
        } else if !signature.allSatisfy(Self.isBase64URL) || signature.last == UInt8(ascii: "=") {
            // imgproxy's signatures are unpadded URL-safe base64: a first segment with padding,
            // a host's dots or port, or percent-encoding is a thumbor URL, signed wrongly or
            // not at all (thumbor's 400).
            self = .thumbor
        } else if signature.elementsEqual("unsafe".utf8) {
            self = Self.afterUnsafe(path[end...], rules: rules)
        } else {
            self = .imgproxy
        }
    }

    private static func afterUnsafe(_ rest: Substring, rules: ImgproxyURLRules) -> URLGrammar {
        let separator = UInt8(ascii: rules.argumentsSeparator)
        let segments = ProxyPath.split(rest, at: "/").filter { !$0.isEmpty }.dropFirst(rules.onlyPresets ? 1 : 0)
            .drop { holdsOptionColon($0) || $0.utf8.contains(separator) }
        guard let first = segments.first else { return .thumbor }
        if first == "plain" { return .imgproxy }
        // Base64 of "http://" and "https://" both begin "aHR0c", told at once. A thumbor
        // segment (fit-in, a size, a host name, an encoded URL) is either short or holds what
        // base64 does not; only a long base64-looking segment (an upper-case scheme) or one split
        // inside those five characters is decoded.
        if first.hasPrefix("aHR0c") { return .imgproxy }
        let beforeExtension = first.utf8.prefix { $0 != UInt8(ascii: ".") }
        guard beforeExtension.allSatisfy(Self.isBase64URL), "aHR0c".hasPrefix(first) || beforeExtension.count >= 12 else { return .thumbor }
        var encoded = segments.joined()
        if let dot = encoded.firstIndex(of: ".") { encoded = String(encoded[..<dot]) }
        let decoded = Base64URL.decode(encoded).flatMap { String(bytes: $0, encoding: .utf8) } ?? ""
        // As the deployment's replacements and base would make it.
        let source = decoded.isEmpty ? decoded : rules.based(decoded).lowercased()
        return source.hasPrefix("http://") || source.hasPrefix("https://") ? .imgproxy : .thumbor
    }

    /// An option segment's colon, or the `%3A` a CDN may have made of it (the proxy restores it
    /// for imgproxy's URLs before reading them).
    private static func holdsOptionColon(_ segment: String) -> Bool {
        segment.utf8.contains(UInt8(ascii: ":")) || segment.contains("%3A") || segment.contains("%3a")
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="): true
        default: false
        }
    }
}
