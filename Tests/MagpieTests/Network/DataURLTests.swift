import Foundation
import Magpie
import MagpieTesting
import Testing

/// `data:` URLs, read by the pipeline's own loader: their bytes are the URL's.
@Suite("data: URLs")
struct DataURLTests {
    @Test func aBase64ImageLoads() async throws {
        let png = try TestImages.texture(width: 20, height: 10, format: .png)
        let base64 = Data(png).base64EncodedString()
        try await withTestFixture { fixture in
            for text in ["data:image/png;base64,\(base64)", "data:;base64,\(base64)", "DATA:image/png;charset=x;base64,\(base64)"] {
                let image = try await fixture.pipeline.image(for: try #require(URL(string: text)))
                #expect((image.width, image.height) == (20, 10), "\(text.prefix(40))")
            }
            #expect(fixture.pipeline.statistics.downloads == 0, "nothing was fetched")
        }
    }

    @Test func badOrLargeURLsAreRefused() throws {
        let loader = DataURLLoader()
        #expect(try loader.read("data:text/plain,a%20b", limit: 10).bytes == Array("a b".utf8))
        #expect(try loader.read("data:text/plain,a%20b", limit: 10).metadata?.contentType == "text/plain")
        #expect(try loader.read("data:;base64,YWI", limit: 10).bytes == Array("ab".utf8), "padding left off")
        #expect(throws: MagpieError.self) { try loader.read("data:image/png;base64", limit: 10) }
        #expect(throws: MagpieError.self) { try loader.read("data:image/png;base64,@@@@", limit: 10) }
        #expect(throws: MagpieError.responseTooLarge(limit: 4)) { try loader.read("data:;base64,AAAAAAAA", limit: 4) }
        let huge = "data:;base64," + String(repeating: "A", count: 40_000)
        #expect(throws: MagpieError.responseTooLarge(limit: 1_000)) { try loader.read(huge, limit: 1_000) }
    }

    /// A policy that names hosts names what may load: a data URL has none.
    @Test func aHostPolicyRefusesThem() async throws {
        try await withTestFixture(configure: { $0.sourcePolicy = SourcePolicy(allowedHosts: ["images.example.com"]) }) { fixture in
            let url = try #require(URL(string: "data:image/png;base64,AAAA"))
            await #expect(throws: MagpieError.self) { try await fixture.pipeline.image(for: url) }
        }
    }
}
