import Foundation
import Magpie
import MagpieTesting
import Testing

// The Processing article's snippets, compiled and run.
func avatarRequest(for url: URL) -> ImageRequest {
    ImageRequest(
        url: url,
        thumbnail: .init(width: 256, height: 256, fit: .fill),
        processors: [.resize(width: 128, height: 128, fit: .fill), .circle])
}

let sepia = ImageProcessors.Anonymous(identifier: "com.example.sepia/1") { image throws(MagpieError) in
    var pixels = image.pixels
    for offset in stride(from: 0, to: pixels.count, by: 4) {
        let grey = (Int(pixels[offset]) * 3 + Int(pixels[offset + 1]) * 6 + Int(pixels[offset + 2])) / 10
        pixels[offset] = UInt8(min(255, grey + 40))
        pixels[offset + 1] = UInt8(min(255, grey + 20))
        pixels[offset + 2] = UInt8(grey)
    }
    return DecodedImage(width: image.width, height: image.height, pixels: pixels, sourceFormat: image.sourceFormat)
}

func avatarPipeline(cacheDirectory: URL) -> ImagePipeline {
    var configuration = ImagePipeline.Configuration()
    configuration.diskCache = DataCache.Configuration(directory: cacheDirectory)
    configuration.diskCachePolicy = .originalsAndVariants
    return ImagePipeline(configuration: configuration)
}

func avatarBytes(_ pipeline: ImagePipeline, url: URL, accept: Set<ImageFormat>) async throws -> (bytes: [UInt8], mediaType: String) {
    let encoding = EncodingRequest(format: .negotiated(accepting: accept), quality: 80)
    let encoded = try await pipeline.encodedImage(for: avatarRequest(for: url), encoding: encoding)
    return (encoded.data, encoded.format.mediaType)
}

@Suite("Processing article")
struct ProcessingArticleTests {
    @Test func avatarsAreRoundAndComeBackFromDisk() async throws {
        let server = try await ImageServer.start()
        server.serve("/me.jpg", .image(try TestImages.texture(width: 600, height: 450)))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-article-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var request = avatarRequest(for: server.url("/me.jpg"))
        request.processors.append(sepia)

        let first = avatarPipeline(cacheDirectory: directory)
        let avatar = try await first.image(for: request)
        #expect(avatar.image.width == 128 && avatar.image.height == 128)
        #expect(avatar.image.pixel(x: 0, y: 0).alpha == 0, "outside the circle")
        let centre = avatar.image.pixel(x: 64, y: 64)
        #expect(centre.alpha == 255 && centre.red >= centre.green && centre.green >= centre.blue, "sepia")
        await first.shutdown()

        let second = avatarPipeline(cacheDirectory: directory)
        let again = try await second.image(for: request)
        #expect(again.source == .disk)
        #expect(again.image.pixel(x: 0, y: 0).alpha == 0)
        await second.shutdown()
        #expect(server.totalRequests == 1)
        await server.shutdown()
    }

    @Test func avatarBytesFollowWhatTheClientAccepts() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/me.jpg", .image(try TestImages.texture(width: 600, height: 450)))
            let url = fixture.server.url("/me.jpg")
            let webp = try await avatarBytes(fixture.pipeline, url: url, accept: [.webp])
            #expect(webp.mediaType == "image/webp" && ImageFormat(sniffing: webp.bytes) == .webp)
            // The circle made transparency, which a source-format answer keeps in PNG.
            let plain = try await avatarBytes(fixture.pipeline, url: url, accept: [])
            #expect(plain.mediaType == "image/png")
            let image = try VipsDecoder().decode(plain.bytes, thumbnail: nil, maximumPixels: 1 << 20)
            #expect(image.width == 128 && image.pixel(x: 0, y: 0).alpha == 0)
            #expect(fixture.server.totalRequests == 1)
        }
    }
}
