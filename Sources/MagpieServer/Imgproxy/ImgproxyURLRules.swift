import Foundation

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
