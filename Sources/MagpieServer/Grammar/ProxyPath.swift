public import Foundation

/// A proxy URL's path, `/<signature>/<options>/<source>`, split into its parts as imgproxy
/// splits its own. Options are the segments with a colon; the source starts at the first
/// segment without one: `plain/` followed by the percent-encoded source URL and optionally
/// `@EXTENSION`, or the source URL in URL-safe base64 (which may be split into several
/// segments) and optionally `.EXTENSION`. The extension names the output format.
public struct ProxyPath: Sendable, Hashable {
    /// The first segment.
    public let signature: String
    /// What the signature covers: the path after the signature, from its `/`.
    public let signedPart: String
    /// The option segments, as written.
    public let optionSegments: [String]
    /// The image to fetch.
    public let source: URL
    /// The output format the source's extension names (`jpg`, `webp`...), as written.
    public let sourceExtension: String?
    /// The last segment of the source URL's path without its extension (`cat` for
    /// `https://example.com/a/cat.jpg?s=1`), `image` when it has none: the name a browser saves
    /// the result under, as imgproxy names it.
    public var sourceStem: String {
        let text = source.absoluteString.utf8
        let end = text.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? text.endIndex
        let path = text[..<end]
        let last = path.lastIndex(of: UInt8(ascii: "/")).map { path.index(after: $0) } ?? path.startIndex
        let component = path[last...]
        let stem = component.lastIndex(of: UInt8(ascii: ".")).map { component[..<$0] } ?? component
        return stem.isEmpty ? "image" : String(decoding: stem, as: UTF8.self)
    }

    /// Splits `path` (as received, percent-encoding intact), written as `rules` say.
    public init(_ path: String, rules: ImgproxyURLRules = ImgproxyURLRules()) throws(ProxyURLError) {
        (signature, signedPart) = try Self.signed(path)
        var segments = Self.split(path, at: "/")
        if segments.first == "" { segments.removeFirst() }
        // Byte by byte: Foundation's `contains` searches strings as text, a fifth of a memory hit.
        let separator = UInt8(ascii: rules.argumentsSeparator)
        let options = rules.onlyPresets ? segments.dropFirst().prefix(1) : segments.dropFirst().prefix { $0.utf8.contains(separator) }
        optionSegments = Array(options)
        var sourceSegments = Array(segments.dropFirst(1 + options.count))
        if rules.base64URLIncludesFilename, sourceSegments.count > 1, sourceSegments.first != "plain" { sourceSegments.removeLast() }
        (source, sourceExtension) = try Self.source(from: sourceSegments, base: rules)
    }

    /// `text` split at every `separator`, empty parts kept. Byte by byte: splitting by
    /// `Character` walks grapheme clusters, which cost more than the rest of a memory hit.
    static func split(_ text: some StringProtocol, at separator: Unicode.Scalar) -> [String] {
        text.utf8.split(separator: UInt8(ascii: separator), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The signature segment and the part it covers, and nothing else read: a signature is
    /// checked before anything it signs is interpreted.
    public static func signed(_ path: String) throws(ProxyURLError) -> (signature: String, signedPart: String) {
        let rest = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
        guard let slash = rest.firstIndex(of: "/"), slash != rest.startIndex, rest.index(after: slash) != rest.endIndex else {
            throw .malformed("the path is /SIGNATURE/OPTIONS/SOURCE; '\(path)' has no source")
        }
        return (String(rest[..<slash]), String(rest[slash...]))
    }

    /// The path as its client wrote it, where a CDN or a browser normalised it, as imgproxy
    /// restores it before checking the signature: `%3A` in the options back to `:`, and a plain
    /// source's `scheme:/host` (two slashes made one) back to `scheme://host`. `path` is
    /// `/<signature>/<options>/<source>`; the signature is left as it is.
    public static func restoringNormalisation(_ path: String) -> String {
        guard needsRestoring(path), let (signature, signedPart) = try? signed(path) else { return path }
        let rest = signedPart.dropFirst()
        var options = Substring("")
        var plain: Substring?
        if rest.hasPrefix("plain/") {
            plain = rest.dropFirst("plain/".count)
        } else if let marker = rest.range(of: "/plain/") {
            (options, plain) = (rest[..<marker.lowerBound], rest[marker.upperBound...])
        } else {
            options = rest
        }
        let restoredOptions = options.utf8.contains(UInt8(ascii: "%"))
            ? options.replacingOccurrences(of: "%3A", with: ":").replacingOccurrences(of: "%3a", with: ":") : String(options)
        guard let plain else { return "/\(signature)/\(restoredOptions)" }
        let source = schemeSlashesRestored(plain)
        return restoredOptions.isEmpty ? "/\(signature)/plain/\(source)" : "/\(signature)/\(restoredOptions)/plain/\(source)"
    }

    /// Whether the options hold a `%3A`, or a plain source starts `scheme:/` with one slash.
    /// Byte by byte, building nothing: every request, memory hits included, comes through here.
    private static func needsRestoring(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in needsRestoring(bytes) }
    }

    private static func needsRestoring(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let marker = "/plain/".utf8
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "/"), bytes[index...].starts(with: marker) {
                var end = index + marker.count
                while end < bytes.count, isSchemeByte(bytes[end]) { end += 1 }
                return end + 2 < bytes.count && bytes[end] == UInt8(ascii: ":") && bytes[end + 1] == UInt8(ascii: "/")
                    && bytes[end + 2] != UInt8(ascii: "/")
            }
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "3"),
                bytes[index + 2] | 0x20 == UInt8(ascii: "a")
            {
                return true
            }
            index += 1
        }
        return false
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    /// `scheme:/x` as `scheme://x` (imgproxy's `local:` as `local:///x`); anything else as it is.
    private static func schemeSlashesRestored(_ source: Substring) -> Substring {
        guard let colon = source.firstIndex(of: ":"), colon != source.startIndex,
            source[..<colon].utf8.allSatisfy(isSchemeByte)
        else { return source }
        let scheme = source[..<colon]
        let after = source[source.index(after: colon)...]
        guard after.hasPrefix("/"), !after.hasPrefix("//"), after.count > 1 else { return source }
        let slashes = scheme == "local" ? ":///" : "://"
        return Substring(scheme + slashes + after.dropFirst())
    }

    /// The schemes of imgproxy's sources; the pipeline loads those it has a loader for
    /// (`local` with `IMGPROXY_LOCAL_FILESYSTEM_ROOT`) and refuses the rest, as imgproxy refuses
    /// a scheme whose transport is off.
    private static let sourceSchemes: Set = ["http", "https", "local", "s3", "gs", "abs", "swift"]

    private static func source(from segments: [String], base rules: ImgproxyURLRules) throws(ProxyURLError) -> (URL, String?) {
        guard let first = segments.first, !first.isEmpty else {
            throw .malformed("no source URL after the options")
        }
        let written: String
        var fileExtension: String?
        if first == "plain" {
            var encoded = segments.dropFirst().joined(separator: "/")
            // An '@' the URL itself holds is percent-encoded; a bare one starts the extension.
            if let at = encoded.utf8.lastIndex(of: UInt8(ascii: "@")) {
                fileExtension = String(encoded[encoded.utf8.index(after: at)...])
                encoded = String(encoded[..<at])
            }
            guard !encoded.isEmpty, let decoded = encoded.removingPercentEncoding else {
                throw .malformed("the plain source is not valid percent-encoding")
            }
            written = decoded
        } else {
            var encoded = segments.joined()
            // URL-safe base64 has no '.', so one starts the extension.
            if let dot = encoded.utf8.firstIndex(of: UInt8(ascii: ".")) {
                fileExtension = String(encoded[encoded.utf8.index(after: dot)...])
                encoded = String(encoded[..<dot])
            }
            guard let bytes = Base64URL.decode(encoded), let decoded = String(bytes: bytes, encoding: .utf8) else {
                throw .malformed("the source is neither plain/<percent-encoded URL> nor URL-safe base64 of a URL")
            }
            written = decoded
        }
        if fileExtension?.isEmpty == true { fileExtension = nil }
        let text = rules.based(written)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), sourceSchemes.contains(scheme) else {
            throw .malformed("the source '\(text)' is not an http, https, local, s3, gs, abs or swift URL")
        }
        if scheme == "http" || scheme == "https" {
            guard let host = url.host, !host.isEmpty else { throw .malformed("the source '\(text)' has no host") }
        }
        return (url, fileExtension)
    }
}

/// URL-safe base64 (RFC 4648 §5), as signatures and sources are written: without padding for
/// imgproxy's, with it for thumbor's.
public enum Base64URL {
    // The alphabets differ in two characters and the padding, swapped byte by byte in
    // Foundation's output: `replacingOccurrences` made an ETag cost more than the rest of a
    // memory hit, and appending to an array byte by byte a twentieth of it.
    public static func encode(_ bytes: some Sequence<UInt8>, padded: Bool = false) -> String {
        let data = bytes.withContiguousStorageIfAvailable { Data($0) } ?? Data(bytes)
        var url = data.base64EncodedData()
        if !padded, let firstPad = url.firstIndex(of: UInt8(ascii: "=")) { url.removeSubrange(firstPad...) }
        url.withUnsafeMutableBytes { text in
            for index in text.indices {
                if text[index] == UInt8(ascii: "+") { text[index] = UInt8(ascii: "-") } else if text[index] == UInt8(ascii: "/") { text[index] = UInt8(ascii: "_") }
            }
        }
        return String(decoding: url, as: UTF8.self)
    }

    /// Decodes with or without padding; `nil` for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        var standard: [UInt8] = []
        var padding = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            // Padding only at the end.
            guard padding == 0 else { return nil }
            switch byte {
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            default: standard.append(byte)
            }
        }
        standard += [UInt8](repeating: UInt8(ascii: "="), count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: Data(standard)).map(Array.init)
    }
}
