import Foundation
import Magpie
import Synchronization

/// The headers a URL's result is answered with, built once and reused while the result stays
/// the same: a hot URL's work is read once (``ReadURLs``), and without this each of its memory
/// hits hashed its ETag and wrote its caching, disposition and validator headers again, a third
/// of what the hit cost. Shared by every copy of the work; what the request itself adds (its
/// id, its timing) is added after.
final class ResultHeaders: Sendable {
    /// What of a result its headers are made of, besides the URL's work.
    struct Result: Equatable, Sendable {
        let format: ImageFormat
        let sourceValidator: String
        let sourceLastModified: String?
        let sourceCacheControl: String?
        let encodedAt: Date?

        init(_ encoded: EncodedImage) {
            format = encoded.format
            sourceValidator = encoded.sourceValidator
            sourceLastModified = encoded.sourceLastModified
            sourceCacheControl = encoded.sourceCacheControl
            encodedAt = encoded.encodedAt
        }
    }

    struct Built: Sendable {
        let validators: AnswerValidators
        let headers: [(name: String, value: String)]
    }

    private let last = Mutex<(result: Result, built: Built)?>(nil)

    /// The headers for `encoded`: those built last when it is the same result, else `build`'s.
    func headers(for encoded: EncodedImage, build: () -> Built) -> Built {
        let result = Result(encoded)
        if let kept = last.withLock({ $0 }), kept.result == result { return kept.built }
        let built = build()
        last.withLock { $0 = (result, built) }
        return built
    }
}
