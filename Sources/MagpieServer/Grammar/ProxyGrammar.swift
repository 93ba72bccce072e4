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
