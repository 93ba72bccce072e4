import Crypto
import Foundation
import Magpie

/// ETags, `If-None-Match` and cache tags.
enum Validators {
    /// A strong ETag for one variant of one version of a source: from the source's cache key,
    /// the variant's name (what is made and how it is encoded) and the source's own validator
    /// (``Magpie/EncodedImage/validator(of:metadata:)``).
    static func etag(source: String, variant: String, sourceValidator: String) -> String {
        // Fed part by part, with no joined copy: every memory hit's answer carries one.
        var hash = SHA256()
        for (index, part) in [source, variant, sourceValidator].enumerated() {
            if index > 0 { hash.update(data: newline) }
            var part = part
            part.withUTF8 { hash.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        }
        return "\"" + Base64URL.encode(hash.finalize()).prefix(22) + "\""
    }

    private static let newline: [UInt8] = [UInt8(ascii: "\n")]

    /// Whether `header` (an `If-None-Match` value) names `etag`; weak comparison, as RFC 9110
    /// asks for this header.
    static func matches(_ header: String?, _ etag: String) -> Bool {
        guard let header else { return false }
        if header.trimmingCharacters(in: .whitespaces) == "*" { return true }
        let bare = { (tag: Substring) in tag.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "") }
        return header.split(separator: ",").contains { bare($0) == etag }
    }

    /// The tag a CDN purges every variant of `source` by (`Cache-Tag`, `Surrogate-Key`): the
    /// first 16 hex digits of the SHA-256 of the source URL.
    static func cacheTag(for source: URL) -> String {
        String(DiskEntryFormat.sha256Hex(source.absoluteString).prefix(16))
    }
}
