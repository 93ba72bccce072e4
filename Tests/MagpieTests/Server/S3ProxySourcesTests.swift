import Configuration
import Foundation
import Logging
import Magpie
import MagpieServer
import MagpieTesting
import Testing

/// `s3://bucket/key` sources through `magpie proxy`, in both grammars, configured by imgproxy's
/// setting names and the standard AWS ones, from SeaweedFS on loopback.
@Suite("Proxy: S3 sources")
struct S3ProxySourcesTests {
    static let photo: [UInt8] = (try? TestImages.texture(width: 640, height: 480, format: .jpeg)) ?? []

    /// imgproxy's settings for `store`, the endpoint written without a scheme as imgproxy allows.
    static func settings(_ store: SeaweedFS, _ extra: [String: String] = [:]) -> ConfigReader {
        var values = [
            "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": "127.0.0.1:\(store.endpoint.port!)", "IMGPROXY_S3_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": store.credentials.accessKeyID, "AWS_SECRET_ACCESS_KEY": store.credentials.secretAccessKey,
        ]
        values.merge(extra) { $1 }
        return ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: values))
    }

    static func size(of body: [UInt8]) throws -> (Int, Int) {
        let image = try ImagePipeline.Configuration().decoder.decode(body, options: DecodingOptions())
        return (image.width, image.height)
    }

    @Test func bothGrammarsReadS3Sources() async throws {
        try await S3SourceTests.withStore { store, prefix in
            try await store.put(Self.photo, bucket: "photos", key: prefix + "cats/a cat.jpg")
            try await store.put(Self.photo, bucket: "private", key: prefix + "cat.jpg")
            try await withProxyFixture(configure: { configuration in
                try configuration.read(Self.settings(store, ["IMGPROXY_S3_DENIED_BUCKETS": "private"]))
                configuration.allowsUnsignedURLs = true
                // The store is the operator's: reached even where sources may not be private.
                configuration.pipeline.addressPolicy = .publicOnly
            }) { fixture in
                let source = try S3SourceTests.url(bucket: "photos", key: prefix + "cats/a cat.jpg")
                let imgproxy = try await fixture.get(fixture.proxy.path(for: source, options: "rs:fit:64:64/f:png"))
                #expect(imgproxy.status == 200, "\(imgproxy.text)")
                #expect(try Self.size(of: imgproxy.body) == (64, 48))

                let thumbor = try await fixture.get("/unsafe/32x0/s3://photos/\(prefix)cats/a%20cat.jpg")
                #expect(thumbor.status == 200, "\(thumbor.text)")
                #expect(try Self.size(of: thumbor.body) == (32, 24))

                let denied = try await fixture.get(fixture.proxy.path(for: try S3SourceTests.url(bucket: "private", key: prefix + "cat.jpg"), options: "rs:fit:64:64"))
                #expect(denied.status == 404, "a denied bucket is not found, as imgproxy answers")
                let missing = try await fixture.get(fixture.proxy.path(for: try S3SourceTests.url(bucket: "photos", key: prefix + "none.jpg"), options: "rs:fit:64:64"))
                #expect(missing.status == 404)
            }
        }
    }

    @Test func aStoreThatRefusesIsABadGatewayWithItsReason() async throws {
        try await S3SourceTests.withStore { store, prefix in
            try await store.put(Self.photo, bucket: "photos", key: prefix + "a.jpg")
            try await withProxyFixture(configure: { configuration in
                try configuration.read(Self.settings(store, ["AWS_SECRET_ACCESS_KEY": "wrong"]))
            }) { fixture in
                let refused = try await fixture.get(fixture.proxy.path(for: try S3SourceTests.url(bucket: "photos", key: prefix + "a.jpg"), options: "rs:fit:64:64"))
                #expect(refused.status == 502)
                let logged = fixture.log.messages(atLeast: .debug).map { "\($0.message) \($0.metadata)" }
                #expect(logged.contains { $0.contains("SignatureDoesNotMatch") }, "the store's reason is logged: \(logged)")
            }
        }
    }

    /// Without `IMGPROXY_USE_S3` an `s3://` source is a scheme nobody reads; settings Magpie
    /// cannot honour stop the proxy instead of being ignored.
    @Test func settingsAreReadOrRefused() async throws {
        try await withProxyFixture { fixture in
            let refused = try await fixture.get(fixture.proxy.path(for: URL(string: "s3://photos/a.jpg")!, options: "rs:fit:64:64"))
            #expect(refused.status == 404)
            #expect(refused.text.contains("the scheme s3 is not allowed"))
        }
        let environments: [[String: String]] = [
            ["IMGPROXY_S3_ASSUME_ROLE_ARN": "arn:aws:iam::1:role/r"],
            ["IMGPROXY_S3_USE_DECRYPTION_CLIENT": "true"],
            ["IMGPROXY_USE_S3": "true", "AWS_ACCESS_KEY_ID": "id-without-secret"],
            ["IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": "ftp://store"],
            ["IMGPROXY_USE_S3": "maybe"],
        ]
        for environment in environments {
            var configuration = ProxyConfiguration(cacheDirectory: FileManager.default.temporaryDirectory)
            #expect(throws: ProxyConfigurationError.self, "\(environment)") {
                try configuration.read(ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: environment)))
            }
        }
        var configuration = ProxyConfiguration(cacheDirectory: FileManager.default.temporaryDirectory)
        try configuration.read(ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: [
            "IMGPROXY_USE_S3": "1", "AWS_REGION": "eu-west-3", "AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret",
            "IMGPROXY_S3_ALLOWED_BUCKETS": "a, b",
        ])))
        let loader = try #require(configuration.pipeline.sourceLoaders["s3"] as? S3Loader)
        #expect(loader.endpoint.url.absoluteString == "https://s3.eu-west-3.amazonaws.com")
        #expect(loader.endpoint.addressing == .virtualHost)
        #expect(loader.endpoint.credentials == AWSCredentials(accessKeyID: "id", secretAccessKey: "secret"))
        #expect(loader.allowedBuckets == ["a", "b"])
    }
}
