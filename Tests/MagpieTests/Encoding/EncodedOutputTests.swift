import Foundation
@testable import Magpie
import MagpieOrigin
import MagpieTesting
import NIOConcurrencyHelpers
import Testing

/// Encoding as a stage of the pipeline: the format chosen, identical work shared at every
/// stage, results kept in memory and on disk under the variant policy, and their age bounded.
@Suite("Encoded output")
struct EncodedOutputTests {
    static func photo() throws -> [UInt8] { try TestImages.texture(width: 640, height: 480, format: .jpeg) }

    /// A PNG whose left half is transparent.
    static func transparentPNG() throws -> [UInt8] {
        var pixels = [UInt8](repeating: 180, count: 200 * 100 * 4)
        for y in 0..<100 { for x in 0..<100 { pixels[(y * 200 + x) * 4 + 3] = 0 } }
        return try ImageEncoder().encode(DecodedImage(width: 200, height: 100, pixels: pixels), as: .png)
    }

    static func decoded(_ encoded: EncodedImage) throws -> DecodedImage {
        try VipsDecoder().decode(encoded.data, options: DecodingOptions(decodesAllFrames: true))
    }

    @Test func theFormatIsTheOneAskedForOrChosenFromWhatIsAccepted() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/a.jpg", .image(try Self.photo()))
            fixture.server.serve("/t.png", .image(try Self.transparentPNG()))
            let thumbnail = ImageRequest(url: fixture.server.url("/a.jpg"), thumbnail: .init(width: 64, height: 64, fit: .fill))
            let cases: [(EncodingRequest.Format, ImageFormat)] = [
                (.fixed(.webp), .webp), (.fixed(.png), .png), (.source, .jpeg), (.negotiated(accepting: [.webp, .png]), .webp),
                (.negotiated(accepting: [.png]), .jpeg), (.negotiated(accepting: []), .jpeg),
            ]
            for (format, expected) in cases {
                let encoded = try await fixture.pipeline.encodedImage(for: thumbnail, encoding: .init(format: format, quality: 70))
                #expect(encoded.format == expected && ImageFormat(sniffing: encoded.data) == expected, "\(format)")
                let image = try Self.decoded(encoded)
                #expect(image.width == 64 && image.height == 64, "\(format)")
            }
            if ImageFormat.avif.isEncoderAvailable {
                let avif = try await fixture.pipeline.encodedImage(for: thumbnail, encoding: .init(format: .negotiated(accepting: [.avif, .webp])))
                #expect(avif.format == .avif && ImageFormat(sniffing: avif.data) == .avif)
            }
            // Transparency keeps a transparent source in PNG.
            let transparent = try await fixture.pipeline.encodedImage(for: ImageRequest(url: fixture.server.url("/t.png")), encoding: .init())
            let transparentImage = try Self.decoded(transparent)
            #expect(transparent.format == .png && transparentImage.width == 200 && transparentImage.pixel(x: 10, y: 10).alpha == 0)
            #expect(fixture.server.statistics(for: "/a.jpg").requests == 1)
        }
    }

    @Test func identicalWorkIsDoneOnceAtEveryStage() async throws {
        let gate = Gate()
        try await withTestFixture { fixture in
            fixture.server.serve("/a.jpg", .image(try Self.photo(), gate: gate))
            let probe = CountingProcessor("test.probe", wrapping: .resize(width: 100, height: 100))
            let request = ImageRequest(url: fixture.server.url("/a.jpg"), processors: [probe])
            let webp = EncodingRequest(format: .fixed(.webp), quality: 60)
            let joins = NIOLockedValueBox(0)
            async let first = fixture.pipeline.encodedImage(for: request, encoding: webp) { joins.withLockedValue { $0 += 1 } }
            async let second = fixture.pipeline.encodedImage(for: request, encoding: webp) { joins.withLockedValue { $0 += 1 } }
            async let otherQuality = fixture.pipeline.encodedImage(for: request, encoding: .init(format: .fixed(.webp), quality: 90))
            async let decodedOnly = fixture.pipeline.image(for: request)
            // One encode joined by the second, two requests joining the processor's node.
            try await waitUntil { fixture.pipeline.statistics.coalesced >= 3 }
            #expect(fixture.pipeline.isEncoding(request, encoding: webp))
            gate.open()
            let results = try await [first, second, otherQuality]
            _ = try await decodedOnly
            #expect(results[0].data == results[1].data && results[0].data != results[2].data)
            #expect(joins.withLockedValue { $0 } == 1, "exactly one of the identical pair joined the other")
            #expect(probe.runs == 1)
            #expect(fixture.server.statistics(for: "/a.jpg").requests == 1)
            #expect(!fixture.pipeline.isEncoding(request, encoding: webp))
        }
    }

    @Test(arguments: CacheStores.allCases)
    func resultsAreKeptInMemoryAndOnDiskByTheVariantPolicy(stores: CacheStores) async throws {
        try await withTestFixture(configure: { stores.apply(to: &$0); $0.diskCachePolicy = .originalsAndVariants }) { fixture in
            var route = ServedRoute.image(try Self.photo())
            route.etag = "\"v7\""
            route.lastModified = "Tue, 03 Nov 2026 10:00:00 GMT"
            fixture.server.serve("/a.jpg", route)
            let probe = CountingProcessor("test.probe")
            let request = ImageRequest(url: fixture.server.url("/a.jpg"), thumbnail: .init(width: 80, height: 80), processors: [probe])
            let encoding = EncodingRequest(format: .fixed(.webp), quality: 50)
            let made = try await fixture.pipeline.encodedImage(for: request, encoding: encoding)
            #expect(made.cache == nil && made.source == .network)
            #expect(made.sourceValidator == "\"v7\"" && made.sourceLastModified == route.lastModified)
            let again = try await fixture.pipeline.encodedImage(for: request, encoding: encoding)
            #expect(again.cache == .memory && again.data == made.data)
            #expect(fixture.pipeline.cachedEncodedImage(for: request, encoding: encoding)?.data == made.data)
            try await DiskVariantTests.restarted(fixture) { pipeline in
                let stored = try await pipeline.encodedImage(for: request, encoding: encoding)
                #expect(stored.cache == .disk && stored.data == made.data && stored.format == .webp)
                #expect(stored.sourceValidator == made.sourceValidator && stored.sourceLastModified == made.sourceLastModified)
                // And the disk hit is in memory from then on.
                #expect(try await pipeline.encodedImage(for: request, encoding: encoding).cache == .memory)
            }
            #expect(probe.runs == 1)
            #expect(fixture.server.statistics(for: "/a.jpg").requests == 1)
        }
    }

    @Test func theDefaultPolicyKeepsNoEncodedResultOnDisk() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/a.jpg", .image(try Self.photo()))
            let request = ImageRequest(url: fixture.server.url("/a.jpg"), thumbnail: .init(width: 80, height: 80))
            _ = try await fixture.pipeline.encodedImage(for: request, encoding: .init())
            await fixture.pipeline.dataCache?.flush()
            #expect(await fixture.pipeline.dataCache?.variantCount == 0)
            try await DiskVariantTests.restarted(fixture) { pipeline in
                var fresh = pipeline.configuration
                fresh.encodedMemoryCacheLimit = nil
                try await withImagePipeline(configuration: fresh) { pipeline in
                    let again = try await pipeline.encodedImage(for: request, encoding: .init())
                    #expect(again.cache == nil && again.source == .disk, "made again from the original on disk")
                }
            }
        }
    }

    @Test func aResultOlderThanTheMaximumAgeIsMadeAgain() async throws {
        try await withTestFixture(configure: { $0.diskCachePolicy = .originalsAndVariants; $0.encodedImageMaxAge = .seconds(60) }) { fixture in
            fixture.server.serve("/a.jpg", .image(try Self.photo()))
            let request = ImageRequest(url: fixture.server.url("/a.jpg"), thumbnail: .init(width: 80, height: 80))
            #expect(try await fixture.pipeline.encodedImage(for: request, encoding: .init()).cache == nil)
            fixture.clock.advance(by: .seconds(59))
            #expect(try await fixture.pipeline.encodedImage(for: request, encoding: .init()).cache == .memory)
            fixture.clock.advance(by: .seconds(2))
            #expect(fixture.pipeline.cachedEncodedImage(for: request, encoding: .init()) == nil)
            // Neither memory nor the disk answers: made again from the original.
            let remade = try await fixture.pipeline.encodedImage(for: request, encoding: .init())
            #expect(remade.cache == nil && remade.source == .disk)
        }
    }

    @Test func trimmingMemoryEmptiesTheEncodedCacheToo() async throws {
        try await withTestFixture { fixture in
            fixture.server.serve("/a.jpg", .image(try Self.photo()))
            let request = ImageRequest(url: fixture.server.url("/a.jpg"), thumbnail: .init(width: 80, height: 80))
            _ = try await fixture.pipeline.encodedImage(for: request, encoding: .init())
            #expect(fixture.pipeline.cachedEncodedImage(for: request, encoding: .init()) != nil)
            fixture.pipeline.trimMemory(reason: "test")
            #expect(fixture.pipeline.cachedEncodedImage(for: request, encoding: .init()) == nil)
        }
    }

    @Test func theValidatorIsTheSourcesOrAHashOfItsBytes() async throws {
        try await withTestFixture { fixture in
            let bytes = try Self.photo()
            fixture.server.serve("/plain.jpg", .image(bytes))
            let encoded = try await fixture.pipeline.encodedImage(for: ImageRequest(url: fixture.server.url("/plain.jpg")), encoding: .init())
            #expect(encoded.sourceValidator == EncodedImage.validator(of: bytes, metadata: nil))
            #expect(encoded.sourceValidator.hasPrefix("sha256:") && encoded.sourceLastModified == nil)
        }
    }

    /// Every setting of an encoding names its result apart; settings that cannot change the
    /// bytes do not.
    @Test func everyEncodingSettingChangesTheName() {
        let configuration = ImagePipeline.Configuration()
        let request = ImageRequest(url: URL(string: "https://example.com/a.jpg")!, thumbnail: .init(width: 10, height: 10))
        func name(_ encoding: EncodingRequest) -> String { configuration.encodedImageKey(for: request, encoding: encoding).variant }
        let base = EncodingRequest(format: .fixed(.webp), quality: 80)
        var changes: [EncodingRequest] = []
        for format: EncodingRequest.Format in [.source, .fixed(.jpeg), .negotiated(accepting: [.webp]), .negotiated(accepting: [.avif])] {
            changes.append({ var c = base; c.format = format; return c }())
        }
        changes.append({ var c = base; c.quality = 81; return c }())
        changes.append({ var c = base; c.progressive = true; return c }())
        changes.append({ var c = base; c.lossless = true; return c }())
        #expect(Set(changes.map(name)).count == changes.count)
        #expect(!changes.map(name).contains(name(base)))
        let accepting = { (formats: Set<ImageFormat>) in name(.init(format: .negotiated(accepting: formats))) }
        #expect(accepting([.avif, .webp, .png, .gif]) == accepting([.webp, .avif]))
        #expect(accepting([.png]) == accepting([]))
        #expect(name(.init(quality: 0)) == name(.init(quality: 1)) && name(.init(quality: 300)) == name(.init(quality: 100)))
        var firstFrame = request
        firstFrame.options = [.firstFrameOnly]
        #expect(configuration.encodedImageKey(for: firstFrame, encoding: base).variant != name(base))
    }
}
