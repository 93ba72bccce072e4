import Configuration
import Foundation
import Magpie
import MagpieServer
import Testing

// The Running replicas article's Swift snippet, compiled and run.
func replicaConfiguration(cacheDirectory: URL, storeURL: URL, environment: [String: String]) -> ProxyConfiguration {
    var configuration = ProxyConfiguration(cacheDirectory: cacheDirectory)
    configuration.pipeline.sharedStore = SharedStore(
        endpoint: S3Endpoint(url: storeURL, region: "eu-west-1", credentials: AWSCredentials(environment: environment)),
        bucket: "thumbnails", prefix: "magpie/")
    return configuration
}

/// The article's code blocks, as the tests run them.
enum RunningReplicasArticle {
    static let article = DocCArticle("Sources/MagpieServer/MagpieServer.docc/RunningReplicas.md")

    static func block(_ language: String) -> String { article.block(language) }

    /// The nginx block with its servers replaced by `replicas` (ports on 127.0.0.1) and its
    /// `listen` by 127.0.0.1:`port`.
    static func nginx(replicas: [Int], port: Int) -> String {
        var lines: [String] = []
        var wroteServers = false
        for line in block("nginx").split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("server "), trimmed.contains(":") {
                guard !wroteServers else { continue }
                wroteServers = true
                let options = trimmed.split(separator: " ").dropFirst(2).joined(separator: " ")
                lines += replicas.map { "    server 127.0.0.1:\($0) \(options)" }
            } else if trimmed.hasPrefix("listen ") {
                lines.append("    listen 127.0.0.1:\(port);")
            } else {
                lines.append(String(line))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The `sh` block's settings, `...` replaced by `values`.
    static func environment(_ values: [String: String]) -> [String: String] { article.settings(values) }
}

@Suite("Running replicas article")
struct RunningReplicasArticleTests {
    @Test func theEnvironmentConfiguresTheSharedStore() throws {
        let environment = RunningReplicasArticle.environment(["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"])
        #expect(environment.count == 6)
        let configuration = try proxyConfiguration(imgproxyEnvironment: environment, cacheDirectory: FileManager.default.temporaryDirectory)
        let store = try #require(configuration.pipeline.sharedStore)
        #expect(store.bucket == "thumbnails" && store.prefix == "magpie/" && store.keeps == .variants)
        #expect(store.endpoint.url.host() == "s3.eu-west-1.amazonaws.com" && store.endpoint.region == "eu-west-1")
        #expect(store.endpoint.credentials?.accessKeyID == "AKID")
        #expect(configuration.pipeline.sourceLoaders["s3"] == nil, "sharing results does not read s3:// sources")
    }

    @Test func theSwiftSnippetConfiguresTheSameStore() throws {
        let configuration = replicaConfiguration(
            cacheDirectory: FileManager.default.temporaryDirectory, storeURL: URL(string: "https://s3.eu-west-1.amazonaws.com")!,
            environment: ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"])
        let store = try #require(configuration.pipeline.sharedStore)
        #expect(store.bucket == "thumbnails" && store.prefix == "magpie/")
        #expect(store.endpoint.credentials?.secretAccessKey == "secret")
    }

    @Test(arguments: [
        (["MAGPIE_STORE_KEEPS": "sometimes"], "MAGPIE_STORE_KEEPS"), (["MAGPIE_STORE_TIMEOUT": "0"], "MAGPIE_STORE_TIMEOUT"),
        (["MAGPIE_STORE_TIMEOUT": "soon"], "MAGPIE_STORE_TIMEOUT"),
    ])
    func badStoreSettingsAreRefusedByName(setting: [String: String], name: String) throws {
        let environment = RunningReplicasArticle.environment([:]).merging(setting) { $1 }
        do {
            _ = try proxyConfiguration(imgproxyEnvironment: environment, cacheDirectory: FileManager.default.temporaryDirectory)
            Issue.record("\(setting) was accepted")
        } catch {
            #expect("\(error)".contains(name))
        }
    }

    @Test func theNginxBlockNamesEveryReplica() {
        let configuration = RunningReplicasArticle.nginx(replicas: [1001, 1002], port: 2000)
        #expect(configuration.contains("hash $magpie_source consistent;"))
        #expect(configuration.contains("server 127.0.0.1:1001 max_fails=1 fail_timeout=10s;"))
        #expect(configuration.contains("server 127.0.0.1:1002 max_fails=1 fail_timeout=10s;"))
        #expect(!configuration.contains("10.0.0.1") && configuration.contains("listen 127.0.0.1:2000;"))
    }
}
