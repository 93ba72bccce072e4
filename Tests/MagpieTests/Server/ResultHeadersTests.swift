import Foundation
@testable import Magpie
@testable import MagpieServer
import NIOConcurrencyHelpers
import Testing

/// A URL's result headers are built once per result: the same result reuses them, and any
/// change a header is made of (a new version of the source, another format) builds them again.
@Suite("Result headers")
struct ResultHeadersTests {
    static func result(format: ImageFormat = .jpeg, validator: String = "\"v1\"", cacheControl: String? = nil) -> EncodedImage {
        EncodedImage(
            data: [1, 2, 3], format: format, source: .memory, cache: .memory, sourceValidator: validator,
            sourceLastModified: "Thu, 01 Jan 2026 00:00:00 GMT", sourceCacheControl: cacheControl, encodedAt: nil)
    }

    @Test func theSameResultReusesItsHeadersAndAChangedOneBuildsThem() {
        let kept = ResultHeaders()
        let builds = NIOLockedValueBox(0)
        func headers(_ encoded: EncodedImage) -> [String] {
            kept.headers(for: encoded) {
                builds.withLockedValue { $0 += 1 }
                return ResultHeaders.Built(
                    validators: AnswerValidators(etag: encoded.sourceValidator, lastModified: encoded.sourceLastModified),
                    headers: [("Content-Type", encoded.format.mediaType), ("ETag", encoded.sourceValidator),
                              ("Cache-Control", encoded.sourceCacheControl ?? "-")])
            }.headers.map { "\($0.name): \($0.value)" }
        }
        let first = headers(Self.result())
        #expect(headers(Self.result()) == first)
        #expect(builds.withLockedValue { $0 } == 1)
        #expect(headers(Self.result(validator: "\"v2\"")).contains("ETag: \"v2\""))
        #expect(headers(Self.result(validator: "\"v2\"", cacheControl: "max-age=5")).contains("Cache-Control: max-age=5"))
        #expect(headers(Self.result(format: .webp, validator: "\"v2\"", cacheControl: "max-age=5")).contains("Content-Type: image/webp"))
        #expect(builds.withLockedValue { $0 } == 4)
        // The first result again: built again, as it is no longer the last.
        #expect(headers(Self.result()) == first)
        #expect(builds.withLockedValue { $0 } == 5)
    }

    /// Many requests for one URL at once, two versions of its result alternating: each answer
    /// carries its own version's tag, whichever was kept when it looked.
    @Test func concurrentHitsEachGetTheirOwnVersionsHeaders() async {
        let kept = ResultHeaders()
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<400 {
                group.addTask {
                    let validator = index % 2 == 0 ? "\"even\"" : "\"odd\""
                    let encoded = Self.result(validator: validator)
                    let built = kept.headers(for: encoded) {
                        ResultHeaders.Built(validators: AnswerValidators(etag: encoded.sourceValidator), headers: [("ETag", encoded.sourceValidator)])
                    }
                    return built.validators.etag == validator && built.headers.first?.value == validator
                }
            }
            for await matched in group { #expect(matched) }
        }
    }
}
