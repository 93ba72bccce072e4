import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

// The Migrating from thumbor article's snippet, compiled and run.
func thumborCompatibleConfiguration(securityKey: String, cacheDirectory: URL) -> ProxyConfiguration {
    var configuration = ProxyConfiguration(cacheDirectory: cacheDirectory)
    configuration.thumborSecurityKeys = [securityKey]
    return configuration
}

@Suite("Migrating from thumbor article")
struct MigratingFromThumborArticleTests {
    @Test func aThumborKeyIsEnoughToServeSignedThumborURLs() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-thumbor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = thumborCompatibleConfiguration(securityKey: "MY_SECURE_KEY", cacheDirectory: directory)
        configuration.pipeline.addressPolicy = AddressPolicy(allowing: .loopback)
        let origin = try await ImageServer.start()
        origin.serve("/a.png", .image(try TestImages.texture(width: 400, height: 300, format: .png)))
        let proxy = try ImageProxy(configuration: configuration)
        let part = "100x100/127.0.0.1:\(origin.url("/a.png").port ?? 0)/a.png"
        let signed = await proxy.respond(to: ProxyRequest(path: "/" + ThumborSigner(keys: ["MY_SECURE_KEY"]).signature(for: part) + "/" + part))
        let unsigned = await proxy.respond(to: ProxyRequest(path: "/unsafe/" + part))
        await proxy.shutdown()
        await origin.shutdown()
        #expect(signed.status == 200 && unsigned.status == 400, "thumbor's status for an unsafe URL it does not allow")
        let image = try VipsDecoder().decode(signed.body, options: DecodingOptions())
        #expect((image.width, image.height) == (100, 100))
    }
}
