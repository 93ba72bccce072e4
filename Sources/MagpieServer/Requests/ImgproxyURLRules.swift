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

    /// Creates the rules imgproxy follows by default.
    public init() {}

    /// The source a URL names, with the base put before it where it is relative.
    func based(_ source: String) -> String {
        guard let baseURL, !baseURL.isEmpty, !source.hasPrefix(baseURL) else { return source }
        return baseURL + source
    }
}
