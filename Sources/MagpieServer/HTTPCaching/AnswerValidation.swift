public import Foundation
import Magpie
import Crypto

/// How the proxy's answers are validated, as the operator chose: the `ETag` and `Last-Modified`
/// they carry, which conditional requests are answered 304, and what of a client's conditions
/// is asked of the origin (imgproxy's `IMGPROXY_USE_ETAG`, `IMGPROXY_USE_LAST_MODIFIED` and
/// their busters).
public struct AnswerValidation: Sendable, Hashable {
    /// What an answer's `ETag` is.
    public enum ETags: Sendable, Hashable {
        /// Magpie's own, strong: a digest of the source, the variant (options and format) and
        /// the source's version, so that two variants of one source never share a tag. A
        /// client's `If-None-Match` is answered from the source Magpie holds (the default).
        case derived
        /// The origin's own `ETag`, as imgproxy sends it: a client's `If-None-Match` is asked
        /// of the origin, whose 304 is passed on without a download. With a `buster`, the tag
        /// is sent as `"BUSTER/<base64url of the origin's tag>"`: a new buster makes every tag a
        /// client holds stale, and only tags with the current buster are asked of the origin.
        case origin(buster: String?)
        /// No `ETag`; `If-None-Match` is not looked at.
        case none
    }

    /// What an answer's `Last-Modified` is.
    public enum LastModified: Sendable, Hashable {
        /// The source's, when its server sent one; a client's `If-Modified-Since` is answered
        /// from the source Magpie holds (the default).
        case source
        /// The source's, and a client's `If-Modified-Since` is asked of the origin too, as
        /// imgproxy does. With a `buster`, no answer is older than it, and a client's date
        /// that is not later than the buster is not asked (its copy predates the buster).
        case origin(buster: Date?)
        /// When the result was made, as thumbor dates an answer from its result storage
        /// (`SEND_IF_MODIFIED_LAST_MODIFIED_HEADERS`): a client's `If-Modified-Since` not
        /// earlier is answered 304 from a result Magpie holds.
        case resultMade
        /// No `Last-Modified`; `If-Modified-Since` is not looked at.
        case none
    }

    public var etags: ETags
    public var lastModified: LastModified

    /// Validation as Magpie does it unless told otherwise: derived tags, the source's date.
    public init(etags: ETags = .derived, lastModified: LastModified = .source) {
        self.etags = etags
        self.lastModified = lastModified
    }
}

/// One answer's validators.
struct AnswerValidators: Sendable {
    var etag: String?
    var lastModified: String?
}

extension AnswerValidation {
    /// The validators of an answer made from a source with these validators, at `resultMade`
    /// when it is made; `derivedTag` is the tag Magpie derives, needed only when tags are derived.
    func validators(
        sourceETag: String?, sourceLastModified: String?, resultMade: Date? = nil, derivedTag: @autoclosure () -> String
    ) -> AnswerValidators {
        var validators = AnswerValidators()
        switch etags {
        case .derived: validators.etag = derivedTag()
        case .origin(let buster): validators.etag = sourceETag.map { tag in buster.map { Self.wrapped(tag, buster: $0) } ?? tag }
        case .none: break
        }
        switch lastModified {
        case .source: validators.lastModified = sourceLastModified
        case .origin(let buster):
            validators.lastModified = sourceLastModified.map { date in
                guard let buster, let parsed = HTTPDate.parse(date), parsed < buster else { return date }
                return HTTPDate.format(buster)
            }
        case .resultMade: validators.lastModified = resultMade.map(HTTPDate.format)
        case .none: break
        }
        return validators
    }

    /// Whether the request asks conditionally in a way the original can answer before the result
    /// is made. A result's own date (`.resultMade`) exists only once it is made, so that
    /// condition is left to the answer.
    func isConditional(_ headers: [String: String]) -> Bool {
        (etags != .none && headers["if-none-match"] != nil)
            || (lastModified != .none && lastModified != .resultMade && headers["if-modified-since"] != nil)
    }

    /// Whether a client that sent `headers` holds the version `validators` name: its
    /// `If-None-Match` decides when it sent one (RFC 9110 13.2.2), else its `If-Modified-Since`.
    func isCurrent(_ headers: [String: String], _ validators: AnswerValidators) -> Bool {
        if etags != .none, let ifNoneMatch = headers["if-none-match"] {
            return validators.etag.map { Validators.matches(ifNoneMatch, $0) } ?? false
        }
        guard lastModified != .none, let since = headers["if-modified-since"].flatMap(HTTPDate.parse),
            let modified = validators.lastModified.flatMap(HTTPDate.parse)
        else { return false }
        return modified <= since
    }

    /// The conditions a client's request puts to the origin: its `If-None-Match` (unwrapped from
    /// the buster) when tags are the origin's, its `If-Modified-Since` when dates are. A tag
    /// without the current buster sends neither: the client's copy is older than the buster.
    func conditionsForOrigin(_ headers: [String: String]) -> [String: String] {
        var conditions: [String: String] = [:]
        if case .origin(let buster) = etags, let ifNoneMatch = headers["if-none-match"] {
            if let buster {
                guard let tag = Self.unwrapped(ifNoneMatch, buster: buster) else { return [:] }
                conditions["If-None-Match"] = tag
            } else {
                conditions["If-None-Match"] = ifNoneMatch
            }
        }
        if case .origin(let buster) = lastModified, let since = headers["if-modified-since"] {
            if let buster {
                if let date = HTTPDate.parse(since), buster < date { conditions["If-Modified-Since"] = since }
            } else {
                conditions["If-Modified-Since"] = since
            }
        }
        return conditions
    }

    static func wrapped(_ tag: String, buster: String) -> String {
        "\"" + buster + "/" + Base64URL.encode(Array(tag.utf8)) + "\""
    }

    /// The origin's tag inside a wrapped one, `nil` when it is not wrapped with `buster`.
    static func unwrapped(_ header: String, buster: String) -> String? {
        var tag = Substring(header.trimmingCharacters(in: .whitespaces))
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        guard tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") else { return nil }
        tag = tag.dropFirst().dropLast()
        guard tag.hasPrefix(buster + "/"), let bytes = Base64URL.decode(String(tag.dropFirst(buster.count + 1))) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

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
