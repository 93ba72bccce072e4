import Foundation
import Magpie

/// imgproxy's grammar: `[/info]/<signature>/<options>/<source>`, signed with HMAC-SHA256 over
/// the path after the signature as its client wrote it (restored from what a CDN normalised),
/// options as ``OptionParser`` reads them, every failure with imgproxy's status.
struct ImgproxyGrammar: ProxyGrammar {
    let signer: URLSigner
    let parser: OptionParser
    let allowsUnsignedURLs: Bool
    let watermarkOpacity: Double
    /// ``ProxyConfiguration/imgproxyAutoFormats``, ``ProxyConfiguration/imgproxyEnforcedFormats``
    /// and ``ProxyConfiguration/imgproxyPreferredFormats``.
    var autoFormats: Set<ImageFormat> = []
    var enforcedFormats: Set<ImageFormat> = []
    var preferredFormats: [ImageFormat] = [.jpeg, .png, .gif]
    /// ``ProxyConfiguration/imgproxyURLRules``.
    var rules = ImgproxyURLRules()
    /// ``ProxyConfiguration/preservesHighDepth`` (`IMGPROXY_PRESERVE_HDR`).
    var preservesHighDepth = false
    /// ``ProxyConfiguration/alwaysRasterizesSVG`` (`IMGPROXY_ALWAYS_RASTERIZE_SVG`).
    var alwaysRasterizesSVG = false

    var kind: URLGrammar { .imgproxy }

    /// imgproxy passes an SVG source through, sanitised, when the URL asks for SVG, or names no
    /// raster format and the operator does not always rasterise. Only the bytes say a source is
    /// SVG, and looking at them before the cache would cost every request a fetch: a source whose
    /// path ends in `.svg` is looked at first (processed as usual when it is not an SVG); another
    /// SVG is drawn.
    func passesSVGThrough(_ options: ProxyOptions, source: URL) -> Bool {
        switch options.format {
        case .fixed(.svg): true
        case .fixed: false
        default: !alwaysRasterizesSVG && source.pathExtension.lowercased() == "svg"
        }
    }

    var healthChecks: [String: String] { ["/health": "ok, \(Libvips.summary)\n"] }

    /// Read without the signature checked or the source decoded: the signature (after `/info`),
    /// then the option segments up to the first without the arguments' separator.
    func redacted(_ path: String) -> String {
        let separator = UInt8(ascii: rules.argumentsSeparator)
        var segments = ProxyPath.split(path, at: "/").dropFirst(path.hasPrefix("/") ? 1 : 0)
        var kept = [segments.popFirst() ?? ""]
        if kept == ["info"] { kept.append(segments.popFirst() ?? "") }
        kept += segments.prefix { $0.utf8.contains(separator) }
        return "/" + (kept + ["REDACTED"]).joined(separator: "/")
    }

    func read(_ path: String) throws(ProxyURLError) -> ProxyURL {
        // `/info/<signature>/<info options>/<source>`: signed after `/info`.
        let asksInfo = path.hasPrefix("/info/")
        let restored = ProxyPath.restoringNormalisation(asksInfo ? String(path.dropFirst("/info".count)) : path)
        // The signature first: nothing it covers is read before it is known to be valid.
        let (signature, signedPart) = try ProxyPath.signed(restored)
        try checkSignature(signature, for: signedPart)
        let path = try ProxyPath(restored, rules: rules)
        if asksInfo {
            return ProxyURL(options: ProxyOptions(), source: path.source, sourceStem: path.sourceStem, reply: .info(try InfoOptions(path.optionSegments)))
        }
        // The extension is the last word on the format, as imgproxy reads it.
        var options = try parser.parse(path.optionSegments, fileExtension: path.sourceExtension)
        chooseFormat(&options)
        return ProxyURL(options: options, source: path.source, sourceStem: path.sourceStem)
    }

    /// imgproxy's order: JPEG XL, then AVIF, for stills (neither is written animated here), then
    /// WebP, when the client's `Accept` names them; the enforced ones over a URL's own format; a
    /// source in a preferred format kept where none applies.
    private func chooseFormat(_ options: inout ProxyOptions) {
        // A drawn SVG has an alpha channel, opaque or not, so imgproxy writes it as PNG.
        options.sourceFormats = Dictionary(uniqueKeysWithValues: preferredFormats.map { ($0, $0) }).merging([.svg: .png]) { old, _ in old }
        let order: [ImageFormat] = [.jxl, .avif, .webp]
        switch options.format {
        case nil:
            let candidates = order.filter { autoFormats.contains($0) || enforcedFormats.contains($0) }
            if !candidates.isEmpty {
                options.format = .automatic(AutomaticFormat(candidates: candidates, readsWildcards: false, convertsAnimations: true))
            }
        case .fixed(let named) where named != .svg:
            let candidates = order.filter(enforcedFormats.contains)
            if !candidates.isEmpty {
                options.format = .automatic(
                    AutomaticFormat(candidates: candidates, readsWildcards: false, convertsAnimations: true, otherwise: named))
            }
        default: break
        }
    }

    /// imgproxy's: a source it cannot reach is not found (404), as is one that is not allowed;
    /// what the origin answers 4xx keeps its status, 5xx is a 502.
    func status(for error: MagpieError) -> Int {
        switch error {
        case .httpStatus(let code, _): (400..<500).contains(code) ? code : code >= 500 ? 502 : 404
        case .invalidURL, .sourceNotAllowed, .network, .tooManyRedirects: 404
        default: FailureResponse.status(for: error)
        }
    }

    /// imgproxy answers every URL it cannot read (a bad option, an expired URL) and a source it
    /// does not allow with a 404, and a signature with a 403.
    func status(for error: ProxyURLError) -> Int {
        switch error.kind {
        case .malformed, .source, .expired: 404
        case .signature: 403
        case .other: error.status
        }
    }

    /// With keys, only a valid signature (or, when unsigned URLs are allowed, `unsafe` or `_`);
    /// without keys and with unsigned URLs allowed, any segment, as imgproxy without a key.
    private func checkSignature(_ signature: String, for signedPart: String) throws(ProxyURLError) {
        if signer.keys.isEmpty {
            guard allowsUnsignedURLs else { throw .badSignature("unsigned URLs are not accepted here") }
            return
        }
        if rules.trustedSignatures.contains(signature) { return }
        if signature == "unsafe" || signature == "_" {
            guard allowsUnsignedURLs else { throw .badSignature("unsigned URLs are not accepted here") }
            return
        }
        guard signer.isValid(signature, for: signedPart) else {
            throw .badSignature("the signature does not match the URL")
        }
    }
}

/// How an imgproxy deployment writes its URLs, from its settings: the separator between an
/// option's arguments, presets only, a base for relative sources, a file name after a base64
/// source, the options allowed and signatures trusted without a key.
public struct ImgproxyURLRules: Sendable, Hashable {
    /// Between an option's name and arguments (`IMGPROXY_ARGUMENTS_SEPARATOR`).
    public var argumentsSeparator: Unicode.Scalar = ":"
    /// The segment after the signature names presets, and nothing else is read as options
    /// (`IMGPROXY_ONLY_PRESETS`).
    public var onlyPresets = false
    /// Put before a source that does not begin with it (`IMGPROXY_BASE_URL`).
    public var baseURL: String?
    /// A base64 source's last segment is a file name, not part of it
    /// (`IMGPROXY_BASE64_URL_INCLUDES_FILENAME`).
    public var base64URLIncludesFilename = false
    /// The only option names a URL may write (`IMGPROXY_ALLOWED_PROCESSING_OPTIONS`); the
    /// presets they name may hold any. `nil`: all.
    public var allowedOptions: Set<String>?
    /// Signature segments accepted as they are (`IMGPROXY_TRUSTED_SIGNATURES`).
    public var trustedSignatures: Set<String> = []
    /// Rewrites of a source's beginning, in order (`IMGPROXY_URL_REPLACEMENTS`), before the base.
    public var replacements: [Replacement] = []

    /// `pattern` matched at a source's beginning, `*` standing for anything but `/`, rewritten
    /// as `replacement`, where `${1}`... are what the stars matched.
    public struct Replacement: Sendable, Hashable {
        /// Matched at a source's beginning; `*` is anything but `/`.
        public let pattern: String
        /// What the match becomes; `${1}`... are what the stars matched.
        public let replacement: String
        // Compiled once, with the settings, not per URL.
        private let expression: NSRegularExpression
        private let template: String

        /// `nil` when `pattern` is empty.
        public init?(pattern: String, replacement: String) {
            let written = "^" + pattern.components(separatedBy: "*").map(NSRegularExpression.escapedPattern(for:)).joined(separator: "([^/]*)")
            guard !pattern.isEmpty, let expression = try? NSRegularExpression(pattern: written) else { return nil }
            self.pattern = pattern
            self.replacement = replacement
            self.expression = expression
            template = Self.template(replacement)
        }

        /// `source` rewritten, or as it is when the pattern does not match its beginning.
        func applied(to source: String) -> String {
            expression.stringByReplacingMatches(in: source, range: NSRange(source.startIndex..., in: source), withTemplate: template)
        }

        public static func == (left: Replacement, right: Replacement) -> Bool {
            left.pattern == right.pattern && left.replacement == right.replacement
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(pattern)
            hasher.combine(replacement)
        }

        /// Go's `${1}` (or `$1`) as `$1`; any other `$` or `\` as the text itself.
        static func template(_ replacement: String) -> String {
            var template = "", rest = Substring(replacement)
            while let first = rest.first {
                if first == "$", let group = rest.dropFirst().wholeGroup {
                    template += "$\(group.number)"
                    rest = group.rest
                    continue
                }
                template += first == "$" || first == "\\" ? "\\\(first)" : String(first)
                rest = rest.dropFirst()
            }
            return template
        }
    }

    /// Creates the rules imgproxy follows by default.
    public init() {}

    /// The source a URL names, rewritten by the replacements, with the base put before it where
    /// it is relative.
    func based(_ source: String) -> String {
        let source = replacements.reduce(source) { $1.applied(to: $0) }
        guard let baseURL, !baseURL.isEmpty, !source.hasPrefix(baseURL) else { return source }
        return baseURL + source
    }
}

extension Substring {
    /// `{N}` or `N` at the start, a group's number, and what follows it.
    fileprivate var wholeGroup: (number: Int, rest: Substring)? {
        let braced = hasPrefix("{")
        let digits = dropFirst(braced ? 1 : 0).prefix(while: \.isNumber)
        guard !digits.isEmpty, let number = Int(digits) else { return nil }
        var rest = dropFirst((braced ? 1 : 0) + digits.count)
        if braced {
            guard rest.hasPrefix("}") else { return nil }
            rest = rest.dropFirst()
        }
        return (number, rest)
    }
}
