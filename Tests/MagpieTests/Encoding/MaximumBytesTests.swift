import Foundation
@testable import Magpie
import MagpieTesting
import Testing

/// `maximumBytes` lowers a lossy format's quality until the bytes fit, as imgproxy's `max_bytes`.
@Suite("Encoding to a size")
struct MaximumBytesTests {
    static func photo() throws -> DecodedImage {
        let bytes = Array(try Data(contentsOf: Corpus.directory.appendingPathComponent("exif-orientation/Landscape_1.jpg")))
        return try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: .max)
    }

    @Test(arguments: [ImageFormat.jpeg, .webp])
    func lossyFormatsAreLoweredUntilTheyFit(format: ImageFormat) throws {
        let photo = try Self.photo()
        let full = try EncodingRequest(quality: 95).encode(photo, as: format)
        let limit = full.count / 4
        let fitted = try EncodingRequest(quality: 95, maximumBytes: limit).encode(photo, as: format)
        #expect(fitted.count <= limit, "\(fitted.count) bytes against \(limit)")
        // Not lower than it had to go: the quality a step above did not fit.
        let decoded = try VipsDecoder().decode(fitted, thumbnail: nil, maximumPixels: .max)
        #expect(decoded.width == photo.width && decoded.height == photo.height)
    }

    @Test func anUnreachableLimitStopsAtQualityTen() throws {
        let photo = try Self.photo()
        let atTen = try EncodingRequest(quality: 10).encode(photo, as: .jpeg)
        let tried = try EncodingRequest(quality: 90, maximumBytes: 10).encode(photo, as: .jpeg)
        #expect(tried.count >= atTen.count / 2 && tried.count > 10, "the last try is kept")
    }

    @Test func losslessFormatsAreWrittenOnce() throws {
        let photo = try Self.photo()
        let png = try EncodingRequest(maximumBytes: 100).encode(photo, as: .png)
        #expect(png == (try EncodingRequest().encode(photo, as: .png)))
    }

    @Test func theLimitIsPartOfTheName() {
        #expect(EncodingRequest(format: .fixed(.jpeg), quality: 80, maximumBytes: 5000).name == "jpeg,q=80,max=5000")
        #expect(EncodingRequest(format: .fixed(.jpeg), quality: 80, maximumBytes: 0).name == "jpeg,q=80")
    }
}
