@testable import Magpie
import Testing

/// How a request's format is chosen for an image: a server's order of preference, and what a
/// source in each format is written as where nothing is asked.
@Suite("Choosing the output format")
struct FormatPreferenceTests {
    static let opaque = DecodedImage(width: 2, height: 2, pixels: [UInt8](repeating: 255, count: 16))
    static let translucent = DecodedImage(width: 2, height: 2, pixels: [UInt8](repeating: 100, count: 16))
    static let animation = DecodedImage(
        width: 2, height: 2, pixels: [UInt8](repeating: 255, count: 32), animation: Animation(frameDelays: [100, 100], loopCount: 0))

    static func chosen(_ format: EncodingRequest.Format, _ image: DecodedImage, source: ImageFormat) -> ImageFormat {
        EncodingRequest(format: format).format(for: image, source: source)
    }

    @Test func theFirstFormatThatHoldsTheImageIsWritten() {
        let preference = FormatPreference(formats: [.jpeg, .webp, .png])
        #expect(Self.chosen(.preferred(preference), Self.opaque, source: .gif) == .jpeg)
        #expect(Self.chosen(.preferred(preference), Self.translucent, source: .gif) == .webp, "JPEG holds no transparency")
        #expect(Self.chosen(.preferred(preference), Self.animation, source: .gif) == .webp, "only WebP of these animates")
    }

    @Test func withoutAnimationsConvertedAnAnimationKeepsItsSourceFormat() {
        let stills = FormatPreference(formats: [.webp, .png], convertsAnimations: false)
        #expect(Self.chosen(.preferred(stills), Self.animation, source: .gif) == .gif)
        #expect(Self.chosen(.preferred(stills), Self.opaque, source: .gif) == .webp)
    }

    @Test func whenNoneHoldsTheImageTheFallbackIsWrittenWhateverItHolds() {
        let enforced = FormatPreference(formats: [.avif], otherwise: .jpeg)
        #expect(Self.chosen(.preferred(enforced), Self.animation, source: .gif) == .jpeg)
        #expect(Self.chosen(.preferred(FormatPreference(formats: [])), Self.translucent, source: .webp) == .webp)
    }

    @Test func sourceFormatsSayWhatEachSourceIsWrittenAs() {
        var thumbor = EncodingRequest()
        thumbor.sourceFormats = EncodingRequest.webSourceFormats.merging([.tiff: .png, .avif: .avif]) { $1 }
        #expect(thumbor.format(for: Self.opaque, source: .tiff) == .png)
        #expect(EncodingRequest().format(for: Self.opaque, source: .tiff) == .jpeg)
        var imgproxy = EncodingRequest()
        imgproxy.sourceFormats = [.jpeg: .jpeg, .png: .png, .gif: .gif]
        #expect(imgproxy.format(for: Self.opaque, source: .webp) == .jpeg)
        #expect(imgproxy.format(for: Self.translucent, source: .webp) == .png)
        #expect(imgproxy.format(for: Self.animation, source: .webp) == .gif)
        #expect(imgproxy.format(for: Self.translucent, source: .jpeg) == .png, "a JPEG made transparent cannot stay JPEG")
    }

    @Test func opaquePNGAsJPEGChangesOnlyWhatTheSourceDecides() {
        var encoding = EncodingRequest(format: .preferred(FormatPreference(formats: [.png])))
        encoding.opaquePNGAsJPEG = true
        #expect(encoding.format(for: Self.opaque, source: .png) == .png, "a preferred PNG is PNG")
        encoding.format = .source
        #expect(encoding.format(for: Self.opaque, source: .png) == .jpeg)
        #expect(encoding.format(for: Self.translucent, source: .png) == .png)
    }

    @Test func whatDecidesTheFormatNamesTheEncoding() {
        var a = EncodingRequest(format: .preferred(FormatPreference(formats: [.webp, .avif])))
        let b = EncodingRequest(format: .preferred(FormatPreference(formats: [.avif, .webp])))
        #expect(a.name != b.name, "the order is the preference")
        let before = a.name
        a.sourceFormats = [.jpeg: .jpeg]
        #expect(a.name != before)
    }
}
