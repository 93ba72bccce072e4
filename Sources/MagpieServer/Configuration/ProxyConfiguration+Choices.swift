import Configuration
import Foundation
import Logging
import Magpie

extension ProxyConfiguration {
    /// What the operator chose of the answers: the health route, the allowed origin, the output
    /// formats (imgproxy's automatic, enforced and preferred ones; thumbor's automatic ones, its
    /// preference and `AUTO_PNG_TO_JPG`) and thumbor's optional filters.
    mutating func readAnswerChoices(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        try readHealthcheckRoute(settings)
        try readImgproxyURLRules(settings)
        try readValidation(settings)
        for (key, name) in [("imgproxy.allow.origin", "IMGPROXY_ALLOW_ORIGIN"), ("access.control.allow.origin.header", "ACCESS_CONTROL_ALLOW_ORIGIN_HEADER")] {
            guard let origin = settings.string(forKey: ConfigKey(key))?.trimmingCharacters(in: .whitespaces), !origin.isEmpty else { continue }
            guard origin.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else {
                throw Self.invalid(name, "is an origin (https://example.com) or *, in printable ASCII")
            }
            allowedOrigin = origin
        }
        let imgproxyFormats: [(String, ImageFormat)] = [("webp", .webp), ("avif", .avif), ("jxl", .jxl)]
        for (name, format) in imgproxyFormats {
            if let on = try Self.boolean(settings, "imgproxy.auto.\(name)", "IMGPROXY_AUTO_\(name.uppercased())") {
                if on { imgproxyAutoFormats.insert(format) } else { imgproxyAutoFormats.remove(format) }
            }
            if let on = try Self.boolean(settings, "imgproxy.enforce.\(name)", "IMGPROXY_ENFORCE_\(name.uppercased())") {
                if on { imgproxyEnforcedFormats.insert(format) } else { imgproxyEnforcedFormats.remove(format) }
            }
        }
        if let names = settings.stringArray(forKey: "imgproxy.preferred.formats"), !names.isEmpty {
            imgproxyPreferredFormats = try names.map { name throws(ProxyConfigurationError) in
                guard let format = ImageFormat(name: name.trimmingCharacters(in: .whitespaces)), format.isEncoderAvailable else {
                    throw Self.invalid("IMGPROXY_PREFERRED_FORMATS", "is formats Magpie writes (jpeg,png,gif); '\(name)' is not one")
                }
                return format
            }
        }
        let thumborFormats: [(String, ImageFormat)] = [("webp", .webp), ("avif", .avif), ("jpg", .jpeg), ("heif", .heif), ("png", .png)]
        for (name, format) in thumborFormats {
            guard let on = try Self.boolean(settings, "auto.\(name)", "AUTO_\(name.uppercased())") else { continue }
            if on { thumborAutoFormats.insert(format) } else { thumborAutoFormats.remove(format) }
        }
        if let written = settings.string(forKey: "auto.image.format.preference") {
            thumborFormatPreference = []
            for entry in Self.pythonList(written) {
                // thumbor ignores what is not one of its five names, with a warning: so does Magpie.
                guard let format = thumborFormats.first(where: { $0.0 == entry.lowercased() })?.1 else {
                    logger.warning("AUTO_IMAGE_FORMAT_PREFERENCE: '\(entry)' is not webp, avif, jpg, heif or png; ignored, as thumbor ignores it")
                    continue
                }
                if !thumborFormatPreference.contains(format) { thumborFormatPreference.append(format) }
            }
        }
        if let on = try Self.boolean(settings, "auto.png.to.jpg", "AUTO_PNG_TO_JPG") { thumborOpaquePNGAsJPEG = on }
        var limit = thumborSourceLimit ?? DecodedImage.Size(width: 0, height: 0)
        for (key, name) in [("max.width", "MAX_WIDTH"), ("max.height", "MAX_HEIGHT")] {
            guard let text = settings.string(forKey: ConfigKey(key))?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { continue }
            guard let side = Int(text), side >= 0, side <= 65_535 else { throw Self.invalid(name, "is pixels, 0 for no limit") }
            limit = key == "max.width" ? DecodedImage.Size(width: side, height: limit.height) : DecodedImage.Size(width: limit.width, height: side)
        }
        thumborSourceLimit = limit.width > 0 || limit.height > 0 ? limit : nil
        if let text = settings.string(forKey: "svg.dpi")?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            // Bounded: the drawn size scales with it (and is then held to the pixel limit).
            guard let dpi = Double(text), dpi.isFinite, dpi >= 1, dpi <= 2_400 else { throw Self.invalid("SVG_DPI", "is dots per inch, 1 to 2400") }
            thumborSVGDPI = dpi
        }
        if let text = settings.string(forKey: "max.age")?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard let seconds = Int(text), seconds >= 0 else { throw Self.invalid("MAX_AGE", "is seconds, 0 or more") }
            thumborMaxAge = min(seconds, ThumborFilters.maximumAge)
        }
        if let modules = settings.string(forKey: "filters") {
            // thumbor's modules are named `thumbor.filters.NAME`; only the optional ones matter here.
            for module in Self.pythonList(modules.replacingOccurrences(of: "+", with: ",")) {
                let name = String(module.split(separator: ".").last ?? "")
                if ThumborFilters.optional[name] != nil { thumborOptionalFilters.insert(name) }
            }
        }
    }

    /// How imgproxy URLs are written here, and where they are mounted (`IMGPROXY_PATH_PREFIX`).
    mutating func readImgproxyURLRules(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        if let prefix = settings.string(forKey: "imgproxy.path.prefix")?.trimmingCharacters(in: .whitespaces), !prefix.isEmpty {
            guard prefix.hasPrefix("/"), !prefix.hasSuffix("/") || prefix == "/" else {
                throw Self.invalid("IMGPROXY_PATH_PREFIX", "is a path such as /imgproxy; '\(prefix)' is not")
            }
            imgproxyPathPrefix = prefix == "/" ? nil : prefix
        }
        if let separator = settings.string(forKey: "imgproxy.arguments.separator"), !separator.isEmpty {
            guard separator.unicodeScalars.count == 1, let scalar = separator.unicodeScalars.first, scalar.isASCII,
                !"/?#%".unicodeScalars.contains(scalar)
            else { throw Self.invalid("IMGPROXY_ARGUMENTS_SEPARATOR", "is one ASCII character other than / ? # %") }
            imgproxyURLRules.argumentsSeparator = scalar
        }
        if let on = try Self.boolean(settings, "imgproxy.only.presets", "IMGPROXY_ONLY_PRESETS") { imgproxyURLRules.onlyPresets = on }
        if let on = try Self.boolean(settings, "imgproxy.base64.url.includes.filename", "IMGPROXY_BASE64_URL_INCLUDES_FILENAME") {
            imgproxyURLRules.base64URLIncludesFilename = on
        }
        if let base = settings.string(forKey: "imgproxy.base.url")?.trimmingCharacters(in: .whitespaces), !base.isEmpty {
            guard let url = URL(string: base), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw Self.invalid("IMGPROXY_BASE_URL", "is an http or https URL that relative sources are put after")
            }
            imgproxyURLRules.baseURL = base
        }
        if let names = settings.stringArray(forKey: "imgproxy.allowed.processing.options"), !names.isEmpty {
            imgproxyURLRules.allowedOptions = Set(names.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        if let written = settings.string(forKey: "imgproxy.url.replacements"), !written.isEmpty {
            imgproxyURLRules.replacements = try written.split(separator: ";").map { pair throws(ProxyConfigurationError) in
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let replacement = ImgproxyURLRules.Replacement(pattern: parts[0], replacement: parts[1]) else {
                    throw Self.invalid("IMGPROXY_URL_REPLACEMENTS", "is PATTERN=REPLACEMENT pairs joined by ';'; '\(pair)' is not one")
                }
                return replacement
            }
        }
        if let signatures = settings.stringArray(forKey: "imgproxy.trusted.signatures"), !signatures.isEmpty {
            imgproxyURLRules.trustedSignatures = Set(signatures.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
    }

    /// thumbor's `HEALTHCHECK_ROUTE`, a regular expression there: Magpie takes a path, with
    /// thumbor's `/?` for an optional trailing slash, and refuses anything else.
    mutating func readHealthcheckRoute(_ settings: ConfigReader) throws(ProxyConfigurationError) {
        guard let route = settings.string(forKey: "healthcheck.route")?.trimmingCharacters(in: .whitespaces), !route.isEmpty else { return }
        let path = route.hasSuffix("/?") ? String(route.dropLast(2)) : route
        let pathCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "/-_."))
        guard route.hasPrefix("/"), path.unicodeScalars.allSatisfy(pathCharacters.contains) else {
            throw Self.invalid("HEALTHCHECK_ROUTE", "is a path such as /healthcheck, optionally ending /?; '\(route)' is not")
        }
        thumborHealthcheckRoute = route
    }

    /// thumbor's rule for its URLs without `format()`, `nil` when the operator turned none on.
    var thumborAutomaticFormat: AutomaticFormat? {
        let order: [ImageFormat] = [.webp, .avif, .jpeg, .heif, .png]
        let candidates = thumborFormatPreference.isEmpty ? order.filter(thumborAutoFormats.contains) : thumborFormatPreference
        guard !candidates.isEmpty else { return nil }
        return AutomaticFormat(candidates: candidates, readsWildcards: true, convertsAnimations: false)
    }

    /// The items of a Python list as thumbor.conf writes it (`['avif', 'webp']`), or of a
    /// comma-separated list, without quotes or spaces.
    static func pythonList(_ text: String) -> [String] {
        text.trimmingCharacters(in: CharacterSet(charactersIn: "[]() ")).split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "'\"")).trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }
}
