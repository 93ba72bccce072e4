import Foundation
import Magpie
@testable import MagpieServer
import Testing

/// Reading thumbor URLs, and telling them from imgproxy's on one port.
@Suite("thumbor URLs")
struct ThumborURLTests {
    @Test(arguments: [
        ("/unsafe/300x200/smart/example.com/a.jpg", URLGrammar.thumbor),
        ("/unsafe/trim:10/fit-in/300x200/filters:quality(80)/http%3A%2F%2Fexample.com%2Fa.jpg", .thumbor),
        ("/unsafe/example.com/a.jpg", .thumbor),
        ("/SXb7Y1ncpjmgOcmLe7_aMQhvhzs=/300x200/example.com/a.jpg", .thumbor),
        ("/unsafe/rs:fit:300:300/plain/http%3A%2F%2Fexample.com%2Fa.jpg", .imgproxy),
        ("/unsafe/trim:10/aHR0cDovL2V4YW1wbGUuY29tL2EuanBn.webp", .imgproxy),
        ("/insecure/g:ce/rs:fit:300:300:0/aHR0cDovL2V4YW1wbGUuY29tL2EuanBn", .imgproxy),
        // Split inside its first characters, and an upper-case scheme (base64 of HTTP://…).
        ("/unsafe/rs:fit:300:300/aHR/0cDovL2V4YW1wbGUuY29tL2EuanBn", .imgproxy),
        ("/unsafe/rs:fit:300:300/SFRUUDovL2V4YW1wbGUuY29tL2EuanBn", .imgproxy),
        ("/unsafe/fit-in/1024x768/example.com/a.jpg", .thumbor),
        // imgproxy's options with the colons a CDN encoded, and a source whose slashes it merged.
        ("/unsafe/rs%3Afit%3A300%3A300/f%3Awebp/plain/http:/example.com/a.jpg", .imgproxy),
        ("/unsafe/s%3a100/aHR0cDovL2V4YW1wbGUuY29tL2EuanBn", .imgproxy),
        ("/unsafe/300x200/http%3A%2F%2Fexample.com%2Fa.jpg", .thumbor),
        // A truncated imgproxy signature of 21 bytes is 28 characters too, never padded.
        ("/bTeMVP-N8GG5dHnF4Aw28PkD6yrp/rs:fit:300:300/plain/http%3A%2F%2Fexample.com%2Fa.jpg", .imgproxy),
        // Neither signed by imgproxy nor unsafe: a host where the signature goes, a padded or
        // percent-encoded segment. thumbor answers these, with its 400.
        ("/example.com:8080/a.jpg", .thumbor),
        ("/%D1%80=/example.com/a.jpg", .thumbor),
        ("/abc=/300x200/example.com/a.jpg", .thumbor),
    ])
    func grammarsAreToldApartByForm(path: String, grammar: URLGrammar) {
        #expect(URLGrammar(path) == grammar)
    }

    @Test func everyPartIsRead() throws {
        let path = try ThumborPath("/unsafe/meta/trim:bottom-right:20/10x20:310x220/adaptive-full-fit-in/-300x-0/right/bottom/smart/filters:quality(80):format(webp):watermark(http://x.com/w.png,0,0,50)/http:/example.com/a%20b.jpg")
        #expect(path.meta && path.trim == .init(corner: "bottom-right", tolerance: 20))
        #expect(path.crop == .init(left: 10, top: 20, right: 310, bottom: 220) && path.fitting == .adaptiveFullFitIn)
        #expect(path.width == 300 && path.height == 0 && path.flipHorizontal && path.flipVertical)
        #expect(path.horizontalAlignment == "right" && path.verticalAlignment == "bottom" && path.smart)
        #expect(path.filters.map(\.name) == ["quality", "format", "watermark"])
        #expect(path.filters[2].arguments == ["http://x.com/w.png", "0", "0", "50"])
        #expect(path.source.absoluteString == "http://example.com/a%20b.jpg")
        #expect(path.signedPart.hasPrefix("/meta/trim"))
    }

    @Test(arguments: [
        ("/unsafe/300x200/filters:quality(80/example.com/a.jpg", "the filters 'filters:quality(80/example.com' are not name(arguments) separated by ':'"),
        ("/unsafe/300x200/", "no image after the options"),
        ("/unsafe/debug/300x200/example.com/a.jpg", "thumbor's debug/ is not supported"),
    ])
    func malformedPathsSayWhatIsWrong(path: String, message: String) {
        #expect(throws: ProxyURLError(status: 400, message: message)) { try ThumborPath(path) }
    }

    /// The signature libthumbor writes: URL-safe base64 of HMAC-SHA1, padded.
    @Test func signaturesAreThumbors() {
        let signer = ThumborSigner(keys: ["MY_SECURE_KEY"])
        let signature = signer.signature(for: "300x200/127.0.0.1:9/g.png")
        #expect(signature.count == 28 && signature.hasSuffix("="))
        #expect(signer.isValid(signature, for: "300x200/127.0.0.1:9/g.png"))
        #expect(!signer.isValid(signature, for: "300x201/127.0.0.1:9/g.png"))
        #expect(!ThumborSigner(keys: ["other"]).isValid(signature, for: "300x200/127.0.0.1:9/g.png"))
    }

    /// The same size limits as imgproxy's URLs: a side, and the output in all.
    @Test func sizesAreLimitedAsImgproxysAre() throws {
        let limits = ProcessingLimits()
        #expect(throws: ProxyURLError(status: 400, message: "the output would be 9000x100 pixels; at most 8192 on a side")) {
            try ThumborReading(try ThumborPath("/unsafe/9000x100/example.com/a.jpg"), limits: limits)
        }
        #expect(throws: ProxyURLError(status: 400, message: "the output would be 8000x8000 pixels; at most 40000000 in all")) {
            try ThumborReading(try ThumborPath("/unsafe/8000x8000/example.com/a.jpg"), limits: limits)
        }
    }
}
