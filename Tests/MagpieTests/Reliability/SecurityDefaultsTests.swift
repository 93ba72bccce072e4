import Foundation
import Magpie
import MagpieTesting
import Testing

/// Security defaults not already covered where their feature is tested (LoaderTests: schemes,
/// redirects and credentials, response limits; DiskCacheTests: file modes, key hashing).
@Suite("Security defaults")
struct SecurityDefaultsTests {
    @Test func hostileKeysStayInsideTheCacheFolderAndReadBack() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-keys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("inner/cache")
        let cache = DataCache(configuration: .init(directory: directory))
        let keys = ["../../escaped", "../inner-sibling", "a\0b", "/etc/passwd", "..", ".", "%2e%2e/x", String(repeating: "é", count: 5000)]
        for (index, key) in keys.enumerated() {
            cache.store(CachedData(key: key, data: TestPayloads.cacheEntry(index), metadata: HTTPMetadata()))
        }
        await cache.flush()
        for (index, key) in keys.enumerated() {
            #expect(await cache.entry(for: key)?.data == TestPayloads.cacheEntry(index), "\(key.prefix(20))")
        }
        // Nothing was written anywhere but the cache folder.
        let everything = FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []
        #expect(Set(everything.filter { !$0.hasPrefix("inner/cache/") }) == ["inner", "inner/cache"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == keys.count)
    }

    @Test(arguments: ["declared", "missing", "lying"])
    func thePixelLimitHoldsWhateverTheContentLengthSays(contentLength: String) async throws {
        try await withTestFixture(configure: { $0.maximumPixels = 10_000 }) { fixture in
            let bytes = try TestImages.texture(width: 200, height: 100, format: .png)
            var route = ServedRoute.image(bytes)
            if contentLength == "missing" { route.omitsContentLength = true }
            if contentLength == "lying" { route.fault = .declareLength(bytes.count - 10) }
            fixture.server.serve("/wide.png", route)
            let url = fixture.server.url("/wide.png")
            await #expect {
                try await fixture.pipeline.image(for: url)
            } throws: { error in
                switch error as? MagpieError {
                case .imageTooLarge(200, 100, 10_000)?: true
                // Cut short by the lie, the PNG may be refused as damaged before its size is read.
                case .decodingFailed? where contentLength == "lying": true
                default: false
                }
            }
        }
    }

    @Test func theResponseLimitHoldsForALyingContentLength() async throws {
        try await withTestFixture(configure: { $0.maximumResponseBytes = 10_000 }) { fixture in
            let big = try TestImages.texture(width: 200, height: 200, format: .png)
            // Claims 2 kB, sends 100+ kB: the client stops at the claim and never buffers the rest.
            fixture.server.serve("/lying.png", ServedRoute(body: big, contentType: "image/png", fault: .declareLength(2_000)))
            await #expect(throws: MagpieError.self) { try await fixture.pipeline.image(for: fixture.server.url("/lying.png")) }
            try await waitUntil { fixture.pipeline.inFlightTaskCount == 0 }
            await fixture.pipeline.dataCache?.flush()
            #expect(await fixture.pipeline.dataCache?.count == 0)
        }
    }
}
