import Configuration
import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// imgproxy's `local:///path` sources, read below `IMGPROXY_LOCAL_FILESYSTEM_ROOT`, and allowed
/// sources that name them.
@Suite("Proxy: local sources")
struct LocalSourcesTests {
    static func settings(_ values: [String: String]) -> ConfigReader {
        ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: values))
    }

    @Test func localSourcesAreReadBelowTheRootOnly() async throws {
        try await SourceLoaderTests.withRoot { root in
            try await withProxyFixture(configure: { configuration in
                try configuration.read(Self.settings(["IMGPROXY_LOCAL_FILESYSTEM_ROOT": root.path]))
            }) { fixture in
                let resized = try await fixture.get(fixture.proxy.path(for: URL(string: "local:///photos/a.png")!, options: "rs:fit:12:12/f:png"))
                #expect(resized.status == 200)
                #expect(resized.header("Content-Type") == "image/png")
                let decoded = try ImagePipeline.Configuration().decoder.decode(resized.body, options: DecodingOptions())
                #expect(decoded.width == 12 && decoded.height == 8)
                let outsides = [
                    "local:///../outside.png", "local:///outside-link.png", "local:///photos/missing.png",
                    // Encoded slashes and dots climb out as plain ones would.
                    "local:///photos/..%2F..%2Foutside.png", "local:///photos/%2E%2E/%2E%2E/outside.png", "local:///%2E%2E%2Foutside.png",
                ]
                for outside in outsides {
                    let refused = try await fixture.get(fixture.proxy.path(for: URL(string: outside)!, options: "rs:fit:12:12"))
                    #expect(refused.status == 404, "\(outside)")
                }
            }
        }
    }

    /// Without a root, `local://` is a scheme nobody loads: imgproxy's 404, before any work.
    @Test func withoutARootLocalSourcesAreRefused() async throws {
        try await withProxyFixture { fixture in
            let refused = try await fixture.get(fixture.proxy.path(for: URL(string: "local:///photos/a.png")!, options: "rs:fit:12:12"))
            #expect(refused.status == 404)
            #expect(refused.text.contains("the scheme local is not allowed"))
        }
    }

    @Test func theRootMustBeAFolder() throws {
        var configuration = ProxyConfiguration(cacheDirectory: FileManager.default.temporaryDirectory)
        #expect(throws: ProxyConfigurationError.self) {
            try configuration.read(Self.settings(["IMGPROXY_LOCAL_FILESYSTEM_ROOT": "/nonexistent/magpie-root"]))
        }
    }

    /// `IMGPROXY_ALLOWED_SOURCES` naming `local://` allows local sources beside the HTTP
    /// prefixes it names; a local source it does not name is refused.
    @Test func allowedSourcesNameLocalPrefixes() async throws {
        try await SourceLoaderTests.withRoot { root in
            try await withProxyFixture(configure: { configuration in
                try configuration.read(Self.settings([
                    "IMGPROXY_LOCAL_FILESYSTEM_ROOT": root.path, "IMGPROXY_ALLOWED_SOURCES": "local:///photos/,http://images.example.com/",
                ]))
            }) { fixture in
                fixture.origin.serve("/a.png", .image(try TestImages.texture(width: 24, height: 16, format: .png)))
                #expect(try await fixture.get(fixture.proxy.path(for: URL(string: "local:///photos/a.png")!, options: "rs:fit:12:12")).status == 200)
                #expect(try await fixture.get(fixture.proxy.path(for: URL(string: "local:///inside-link.png")!, options: "rs:fit:12:12")).status == 404)
                #expect(try await fixture.get(fixture.path("/a.png", "rs:fit:12:12")).status == 404)
                #expect(fixture.origin.statistics(for: "/a.png").requests == 0)
            }
        }
    }
}
