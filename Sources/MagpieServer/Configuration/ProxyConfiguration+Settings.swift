public import Configuration
import Foundation
import Magpie

extension ProxyConfiguration {
    /// Reads an operator's settings from `settings` (environment variables, an env file, or any
    /// other provider): imgproxy's names for what both servers share, so an imgproxy
    /// deployment's environment works unchanged, and Magpie's `MAGPIE_PROXY_KEY` and
    /// `MAGPIE_PROXY_SALT`. Settings not given keep their values; a value that cannot be used is
    /// an error that names it, never ignored.
    ///
    /// | Setting | Environment | |
    /// |---|---|---|
    /// | `magpie.proxy.key`, `imgproxy.key` | `MAGPIE_PROXY_KEY`, `IMGPROXY_KEY` | hex keys, comma-separated to rotate |
    /// | `magpie.proxy.salt`, `imgproxy.salt` | `MAGPIE_PROXY_SALT`, `IMGPROXY_SALT` | hex salts, one per key |
    /// | `imgproxy.signature.size` | `IMGPROXY_SIGNATURE_SIZE` | ``signatureSize`` |
    /// | `imgproxy.max.src.resolution` | `IMGPROXY_MAX_SRC_RESOLUTION` | megapixels |
    /// | `max.pixels` | `MAX_PIXELS` | thumbor's source limit in pixels (`75e6`); after `IMGPROXY_MAX_SRC_RESOLUTION` |
    /// | `imgproxy.max.src.file.size` | `IMGPROXY_MAX_SRC_FILE_SIZE` | bytes (0 keeps Magpie's limit) |
    /// | `imgproxy.max.animation.frames` | `IMGPROXY_MAX_ANIMATION_FRAMES` | frames of an animated source |
    /// | `imgproxy.max.result.dimension` | `IMGPROXY_MAX_RESULT_DIMENSION` | ``maximumResultDimension`` (0: none) |
    /// | `magpie.allow.unsigned` | `MAGPIE_ALLOW_UNSIGNED` | ``allowsUnsignedURLs`` |
    /// | `imgproxy.allow.security.options` | `IMGPROXY_ALLOW_SECURITY_OPTIONS` | ``allowsSecurityOptions`` |
    /// | `imgproxy.always.rasterize.svg` | `IMGPROXY_ALWAYS_RASTERIZE_SVG` | ``alwaysRasterizesSVG`` |
    /// | `imgproxy.preserve.hdr` | `IMGPROXY_PRESERVE_HDR` | ``preservesHighDepth`` |
    /// | `imgproxy.ttl` | `IMGPROXY_TTL` | ``cacheMaxAge`` in seconds |
    /// | `imgproxy.workers` | `IMGPROXY_WORKERS` | ``processingSlots``, 1 or more |
    /// | `imgproxy.requests.queue.size` | `IMGPROXY_REQUESTS_QUEUE_SIZE` | ``queueLimit``; imgproxy's 0 (no limit) is ``unlimitedQueue`` |
    /// | `imgproxy.timeout` | `IMGPROXY_TIMEOUT` | ``requestTimeout`` in seconds |
    /// | `imgproxy.prometheus.namespace` | `IMGPROXY_PROMETHEUS_NAMESPACE` | ``prometheusNamespace`` |
    /// | `imgproxy.quality` | `IMGPROXY_QUALITY` | ``defaultQuality`` |
    /// | `imgproxy.format.quality` | `IMGPROXY_FORMAT_QUALITY` | `jpeg=80,webp=75` |
    /// | `imgproxy.presets` | `IMGPROXY_PRESETS` | `name=rs:fill:300:300/q:70,...` |
    /// | `imgproxy.allowed.sources` | `IMGPROXY_ALLOWED_SOURCES` | `https://images.example.com/,local://,...` |
    /// | `imgproxy.local.filesystem.root` | `IMGPROXY_LOCAL_FILESYSTEM_ROOT` | a folder `local:///path` sources are read below |
    /// | `imgproxy.use.s3`, `imgproxy.s3.*`, `aws.*` | `IMGPROXY_USE_S3`, `IMGPROXY_S3_ENDPOINT`, `AWS_ACCESS_KEY_ID`, ... | `s3://` sources, read by an ``S3Loader`` |
    /// | `magpie.store.s3.bucket`, `.s3.prefix`, `.keeps`, `.timeout` | `MAGPIE_STORE_S3_BUCKET`, `MAGPIE_STORE_S3_PREFIX`, `MAGPIE_STORE_KEEPS`, `MAGPIE_STORE_TIMEOUT` | results shared by replicas in a bucket (``Magpie/SharedStore``), on the `s3://` sources' endpoint |
    /// | `imgproxy.allow.loopback.source.addresses` | `IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES` | `true` lets sources be on this machine |
    /// | `imgproxy.allow.private.source.addresses` | `IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES` | `true` lets sources be on private networks |
    /// | `imgproxy.allow.link.local.source.addresses` | `IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES` | `true` lets sources be link-local |
    /// | `imgproxy.watermark.path` | `IMGPROXY_WATERMARK_PATH` | ``watermark``, an image file |
    /// | `imgproxy.watermark.data` | `IMGPROXY_WATERMARK_DATA` | ``watermark``, base64 of an image |
    /// | `imgproxy.watermark.url` | `IMGPROXY_WATERMARK_URL` | ``watermarkURL`` |
    /// | `imgproxy.watermark.opacity` | `IMGPROXY_WATERMARK_OPACITY` | ``watermarkOpacity``, 0 to 1 |
    /// | `security.key` | `SECURITY_KEY` | thumbor's key (``thumborSecurityKeys``) |
    /// | `imgproxy.auto.webp`, `.avif`, `.jxl` | `IMGPROXY_AUTO_WEBP`, `_AVIF`, `_JXL` | ``imgproxyAutoFormats`` |
    /// | `imgproxy.enforce.webp`, `.avif`, `.jxl` | `IMGPROXY_ENFORCE_WEBP`, `_AVIF`, `_JXL` | ``imgproxyEnforcedFormats`` |
    /// | `imgproxy.preferred.formats` | `IMGPROXY_PREFERRED_FORMATS` | ``imgproxyPreferredFormats`` (`jpeg,png,gif`) |
    /// | `auto.webp`, `.avif`, `.jpg`, `.heif`, `.png` | `AUTO_WEBP`, `AUTO_AVIF`, `AUTO_JPG`, `AUTO_HEIF`, `AUTO_PNG` | ``thumborAutoFormats`` (`True` or `False`) |
    /// | `auto.image.format.preference` | `AUTO_IMAGE_FORMAT_PREFERENCE` | ``thumborFormatPreference`` (`['avif','webp']`) |
    /// | `auto.png.to.jpg` | `AUTO_PNG_TO_JPG` | ``thumborOpaquePNGAsJPEG`` |
    /// | `imgproxy.allow.origin`, `access.control.allow.origin.header` | `IMGPROXY_ALLOW_ORIGIN`, `ACCESS_CONTROL_ALLOW_ORIGIN_HEADER` | ``allowedOrigin`` |
    /// | `imgproxy.path.prefix` | `IMGPROXY_PATH_PREFIX` | ``imgproxyPathPrefix`` |
    /// | `imgproxy.arguments.separator`, `.only.presets`, `.base.url`, `.base64.url.includes.filename`, `.url.replacements`, `.allowed.processing.options`, `.trusted.signatures` | `IMGPROXY_ARGUMENTS_SEPARATOR`, ... | ``imgproxyURLRules`` |
    /// | `imgproxy.use.etag`, `.etag.buster`, `.use.last.modified`, `.last.modified.buster` | `IMGPROXY_USE_ETAG`, `IMGPROXY_ETAG_BUSTER`, `IMGPROXY_USE_LAST_MODIFIED`, `IMGPROXY_LAST_MODIFIED_BUSTER` | ``validation`` |
    /// | `imgproxy.cache.control.passthrough` | `IMGPROXY_CACHE_CONTROL_PASSTHROUGH` | ``passesSourceCacheControl`` |
    /// | `send.if.modified.last.modified.headers` | `SEND_IF_MODIFIED_LAST_MODIFIED_HEADERS` | ``validation``: `.resultMade` |
    /// | `max.age` | `MAX_AGE` | ``thumborMaxAge`` |
    /// | `svg.dpi` | `SVG_DPI` | ``thumborSVGDPI`` |
    /// | `max.width`, `max.height` | `MAX_WIDTH`, `MAX_HEIGHT` | ``thumborSourceLimit`` |
    /// | `healthcheck.route` | `HEALTHCHECK_ROUTE` | ``thumborHealthcheckRoute`` (`/healthcheck/?`) |
    /// | `filters` | `FILTERS` | ``thumborOptionalFilters``: thumbor's modules beyond the built-in ones (`thumbor.filters.autojpg`) |
    public mutating func read(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        try readKeys(settings)
        if let key = settings.string(forKey: "security.key", isSecret: true), !key.isEmpty {
            thumborSecurityKeys = [key]
        }
        try readLimits(settings)
        try readAnswerChoices(settings)
        try readSwitches(settings)
        try readServing(settings)
        try readQuality(settings)
        try readSources(settings)
        try readObjectStorage(settings)
        try readWatermark(settings)
        try readAddressRanges(settings)
    }

    /// The signature's size and the limits on sources and results.
    private mutating func readLimits(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        if let size = try Self.whole(settings, "imgproxy.signature.size", "IMGPROXY_SIGNATURE_SIZE") {
            guard (1...32).contains(size) else { throw Self.invalid("IMGPROXY_SIGNATURE_SIZE", "is bytes of the HMAC, 1 to 32") }
            signatureSize = size
        }
        if let megapixels = try Self.number(settings, "imgproxy.max.src.resolution", "IMGPROXY_MAX_SRC_RESOLUTION") {
            guard megapixels > 0, megapixels <= 10_000 else { throw Self.invalid("IMGPROXY_MAX_SRC_RESOLUTION", "is megapixels above 0") }
            pipeline.maximumPixels = Int(megapixels * 1_000_000)
        }
        // thumbor's name for the same limit, in pixels (its default is 75 megapixels).
        if let pixels = try Self.number(settings, "max.pixels", "MAX_PIXELS") {
            guard pixels >= 1, pixels <= 10_000_000_000 else { throw Self.invalid("MAX_PIXELS", "is pixels, 1 or more") }
            pipeline.maximumPixels = Int(pixels)
        }
        if let bytes = try Self.whole(settings, "imgproxy.max.src.file.size", "IMGPROXY_MAX_SRC_FILE_SIZE") {
            guard bytes >= 0 else { throw Self.invalid("IMGPROXY_MAX_SRC_FILE_SIZE", "is bytes, 0 for Magpie's limit") }
            if bytes > 0 { pipeline.maximumResponseBytes = bytes }
        }
        if let frames = try Self.whole(settings, "imgproxy.max.animation.frames", "IMGPROXY_MAX_ANIMATION_FRAMES") {
            guard frames >= 1 else { throw Self.invalid("IMGPROXY_MAX_ANIMATION_FRAMES", "is frames, 1 or more") }
            pipeline.maximumAnimationFrames = frames
        }
        if let side = try Self.whole(settings, "imgproxy.max.result.dimension", "IMGPROXY_MAX_RESULT_DIMENSION") {
            guard side >= 0 else { throw Self.invalid("IMGPROXY_MAX_RESULT_DIMENSION", "is pixels, 0 for none") }
            maximumResultDimension = side > 0 ? side : nil
        }
    }

    /// What URLs may ask, and how long results are kept.
    private mutating func readSwitches(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        // Said in the settings, so a service's environment file can say it; never assumed from a
        // missing key, as imgproxy does.
        if let unsigned = try Self.boolean(settings, "magpie.allow.unsigned", "MAGPIE_ALLOW_UNSIGNED") { allowsUnsignedURLs = unsigned }
        if let allowed = try Self.boolean(settings, "imgproxy.allow.security.options", "IMGPROXY_ALLOW_SECURITY_OPTIONS") {
            allowsSecurityOptions = allowed
        }
        if let always = try Self.boolean(settings, "imgproxy.always.rasterize.svg", "IMGPROXY_ALWAYS_RASTERIZE_SVG") { alwaysRasterizesSVG = always }
        if let preserve = try Self.boolean(settings, "imgproxy.preserve.hdr", "IMGPROXY_PRESERVE_HDR") { preservesHighDepth = preserve }
        if let seconds = try Self.whole(settings, "imgproxy.ttl", "IMGPROXY_TTL") {
            guard seconds >= 0 else { throw Self.invalid("IMGPROXY_TTL", "is seconds, 0 or more") }
            cacheMaxAge = .seconds(seconds)
        }
    }

    /// Metrics, processing slots, the queue and the request timeout.
    private mutating func readServing(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        if let namespace = settings.string(forKey: "imgproxy.prometheus.namespace"), !namespace.isEmpty {
            guard namespace.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }),
                !(0x30...0x39).contains(namespace.utf8.first!)
            else { throw Self.invalid("IMGPROXY_PROMETHEUS_NAMESPACE", "is letters, digits and '_', not starting with a digit") }
            prometheusNamespace = namespace
        }
        if let workers = try Self.whole(settings, "imgproxy.workers", "IMGPROXY_WORKERS") {
            guard workers >= 1 else { throw Self.invalid("IMGPROXY_WORKERS", "is 1 or more") }
            processingSlots = workers
        }
        if let size = try Self.whole(settings, "imgproxy.requests.queue.size", "IMGPROXY_REQUESTS_QUEUE_SIZE") {
            guard size >= 0 else { throw Self.invalid("IMGPROXY_REQUESTS_QUEUE_SIZE", "is 0 (no limit) or more") }
            queueLimit = size == 0 ? Self.unlimitedQueue : size
        }
        if let seconds = try Self.number(settings, "imgproxy.timeout", "IMGPROXY_TIMEOUT") {
            guard seconds > 0, seconds <= Self.longestRequestTimeout else {
                throw Self.invalid("IMGPROXY_TIMEOUT", "is seconds, more than 0 and at most \(Int(Self.longestRequestTimeout))")
            }
            requestTimeout = .nanoseconds(Int64(seconds * 1e9))
        }
    }

    /// Quality, per format, and presets.
    private mutating func readQuality(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        if let quality = try Self.whole(settings, "imgproxy.quality", "IMGPROXY_QUALITY") {
            guard (1...100).contains(quality) else { throw Self.invalid("IMGPROXY_QUALITY", "is 1 to 100") }
            defaultQuality = quality
        }
        for item in settings.stringArray(forKey: "imgproxy.format.quality") ?? [] {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, let format = ImageFormat(name: pair[0].lowercased()), let quality = Int(pair[1]), (1...100).contains(quality) else {
                throw Self.invalid("IMGPROXY_FORMAT_QUALITY", "is FORMAT=QUALITY pairs, e.g. jpeg=80,webp=75; '\(item)' is not")
            }
            formatQuality[format] = quality
        }
        for item in settings.stringArray(forKey: "imgproxy.presets") ?? [] {
            let pair = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, !pair[0].isEmpty else { throw Self.invalid("IMGPROXY_PRESETS", "is NAME=OPTIONS items; '\(item)' is not") }
            presets[pair[0]] = pair[1]
        }
    }

    /// Local sources and the allowed sources' prefixes.
    private mutating func readSources(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        if let root = settings.string(forKey: "imgproxy.local.filesystem.root"), !root.isEmpty {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue else {
                throw Self.invalid("IMGPROXY_LOCAL_FILESYSTEM_ROOT", "is a folder; '\(root)' is not one")
            }
            pipeline.sourceLoaders["local"] = FileSystemLoader(root: URL(filePath: root, directoryHint: .isDirectory))
        }
        if let prefixes = settings.stringArray(forKey: "imgproxy.allowed.sources"), !prefixes.isEmpty {
            sources = SourcePolicy(
                allowedPrefixes: try prefixes.map { text throws(ProxyConfigurationError) in
                    guard let prefix = SourcePrefix(text) else {
                        throw Self.invalid("IMGPROXY_ALLOWED_SOURCES", "takes URL prefixes (https://images.example.com/, local://, s3://bucket/); '\(text)' is not one")
                    }
                    return prefix
                })
        }
    }

    /// The whole number `key` holds, `nil` when unset; a value that is not one is an error naming
    /// the setting (the reader's own accessor would take it for unset).
    private static func whole(_ settings: ConfigReader, _ key: String, _ name: String) throws(ProxyConfigurationError) -> Int? {
        guard let text = settings.string(forKey: ConfigKey(key))?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Int(text) else { throw invalid(name, "is a whole number; '\(text)' is not") }
        return value
    }

    /// The number `key` holds (`12.5`, `75e6`), `nil` when unset; anything else is an error.
    private static func number(_ settings: ConfigReader, _ key: String, _ name: String) throws(ProxyConfigurationError) -> Double? {
        guard let text = settings.string(forKey: ConfigKey(key))?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard let value = Double(text), value.isFinite else { throw invalid(name, "is a number; '\(text)' is not") }
        return value
    }

    /// A switch in Go's boolean spellings, as imgproxy reads them; `nil` when unset.
    static func boolean(_ settings: ConfigReader, _ key: String, _ name: String) throws(ProxyConfigurationError) -> Bool? {
        guard let text = settings.string(forKey: ConfigKey(key)), !text.isEmpty else { return nil }
        switch text {
        case "1", "t", "T", "true", "TRUE", "True": return true
        case "0", "f", "F", "false", "FALSE", "False": return false
        default: throw invalid(name, "is true or false")
        }
    }

    /// imgproxy's switches for source addresses beyond the public ones (Go's boolean spellings).
    private mutating func readAddressRanges(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        let switches: [(key: String, name: String, range: AddressPolicy.Ranges)] = [
            ("imgproxy.allow.loopback.source.addresses", "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", .loopback),
            ("imgproxy.allow.private.source.addresses", "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES", .privateNetworks),
            ("imgproxy.allow.link.local.source.addresses", "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES", .linkLocal),
        ]
        for item in switches {
            guard let allowed = try Self.boolean(settings, item.key, item.name) else { continue }
            var policy = pipeline.addressPolicy ?? .publicOnly
            if allowed { policy.allowed.insert(item.range) } else { policy.allowed.remove(item.range) }
            pipeline.addressPolicy = policy
        }
    }

    private mutating func readWatermark(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        if let path = settings.string(forKey: "imgproxy.watermark.path"), !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Self.invalid("IMGPROXY_WATERMARK_PATH", "names a file that cannot be read: \(path)")
            }
            watermark = try Self.mark(Array(data), setting: "IMGPROXY_WATERMARK_PATH", limits: pipeline)
        }
        if let text = settings.string(forKey: "imgproxy.watermark.data"), !text.isEmpty {
            guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw Self.invalid("IMGPROXY_WATERMARK_DATA", "is base64 of an image")
            }
            watermark = try Self.mark(Array(data), setting: "IMGPROXY_WATERMARK_DATA", limits: pipeline)
        }
        if let text = settings.string(forKey: "imgproxy.watermark.url"), !text.isEmpty {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw Self.invalid("IMGPROXY_WATERMARK_URL", "is an http or https URL")
            }
            watermarkURL = url
        }
        if let opacity = try Self.number(settings, "imgproxy.watermark.opacity", "IMGPROXY_WATERMARK_OPACITY") {
            guard (0...1).contains(opacity) else { throw Self.invalid("IMGPROXY_WATERMARK_OPACITY", "is 0 to 1") }
            watermarkOpacity = opacity
        }
    }

    /// The operator's mark, decoded once at start, named by its bytes' digest.
    private static func mark(_ bytes: [UInt8], setting: String, limits: ImagePipeline.Configuration) throws(ProxyConfigurationError) -> ImageProcessors.Watermark.Mark {
        do {
            let image = try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: limits.maximumPixels)
            return ImageProcessors.Watermark.Mark(identifier: "data:" + DiskEntryFormat.sha256Hex(bytes), image: image)
        } catch {
            throw invalid(setting, "is not an image Magpie can decode: \(error.description)")
        }
    }

    private mutating func readKeys(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        let (keyName, saltName) =
            settings.stringArray(forKey: "magpie.proxy.key", isSecret: true) != nil
            ? (("magpie.proxy.key", "MAGPIE_PROXY_KEY"), ("magpie.proxy.salt", "MAGPIE_PROXY_SALT"))
            : (("imgproxy.key", "IMGPROXY_KEY"), ("imgproxy.salt", "IMGPROXY_SALT"))
        guard let keys = settings.stringArray(forKey: ConfigKey(keyName.0), isSecret: true), !keys.isEmpty else { return }
        let salts = settings.stringArray(forKey: ConfigKey(saltName.0), isSecret: true) ?? []
        guard keys.count == salts.count else {
            throw Self.invalid(saltName.1, "needs one salt per key in \(keyName.1) (\(keys.count) keys, \(salts.count) salts)")
        }
        var pairs: [SigningKey] = []
        for (key, salt) in zip(keys, salts) {
            do {
                pairs.append(try SigningKey(keyHex: key, saltHex: salt))
            } catch {
                throw Self.invalid("\(keyName.1) and \(saltName.1)", "are hex: \(error.message)")
            }
        }
        signingKeys = pairs
    }

    /// The host an imgproxy allowed-source prefix names; Magpie allows sources by host, so a
    /// prefix with a path is refused rather than widened.
    static func invalid(_ name: String, _ reason: String) -> ProxyConfigurationError {
        ProxyConfigurationError(message: "\(name) \(reason)")
    }
}
