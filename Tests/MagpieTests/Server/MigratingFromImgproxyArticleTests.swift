import Configuration
import Foundation
import Magpie
import MagpieServer
import Testing

// The Migrating from imgproxy article's snippet, compiled and run.
func proxyConfiguration(imgproxyEnvironment: [String: String], cacheDirectory: URL) throws -> ProxyConfiguration {
    var configuration = ProxyConfiguration(cacheDirectory: cacheDirectory)
    try configuration.read(ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: imgproxyEnvironment)))
    return configuration
}

@Suite("Migrating from imgproxy article")
struct MigratingFromImgproxyArticleTests {
    @Test func anImgproxyEnvironmentConfiguresTheProxy() async throws {
        let configuration = try proxyConfiguration(
            imgproxyEnvironment: ["IMGPROXY_KEY": "6b6579", "IMGPROXY_SALT": "73616c74", "IMGPROXY_TTL": "3600"],
            cacheDirectory: FileManager.default.temporaryDirectory)
        #expect(configuration.signingKeys == [try SigningKey(keyHex: "6b6579", saltHex: "73616c74")])
        #expect(configuration.cacheMaxAge == .seconds(3600))
        let proxy = try ImageProxy(configuration: configuration)
        let path = proxy.path(for: URL(string: "https://example.com/a.jpg")!, options: "rs:fill:100:100")
        await proxy.shutdown()
        #expect(path == URLSigner(keys: configuration.signingKeys).sign("/rs:fill:100:100/plain/https%3A%2F%2Fexample.com%2Fa.jpg"))
    }
}
