import AsyncHTTPClient
import Foundation
import Magpie
import MagpieServer
import MagpieTesting
import NIOCore
import NIOHTTP1
import Testing

/// The README's deployment: two proxy replicas behind nginx, hashed on the source, with
/// nginx's cache in front.
@Suite("Proxy behind nginx")
struct ProxyDeploymentTests {
    @Test func eachSourceGoesToOneReplicaAndRepeatsAreNginxHits() async throws {
        let origin = try await ImageServer.start()
        let sources = (0..<16).map { "/photo\($0).jpg" }
        for (index, path) in sources.enumerated() {
            origin.serve(path, .image(try TestImages.texture(width: 320, height: 240, format: .jpeg, seed: UInt32(index + 1))))
        }
        var replicas: [ProxyReplica] = []
        for _ in 0..<2 {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-replica-\(UUID().uuidString)")
            var configuration = ProxyConfiguration(cacheDirectory: directory)
            configuration.pipeline.addressPolicy = AddressPolicy(allowing: .loopback)
            configuration.signingKeys = [try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)]
            replicas.append(try await ProxyReplica.start(configuration))
        }
        let nginx = try await NginxImageCache(replicaPorts: replicas.map(\.port))
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        func get(_ path: String) async throws -> (status: Int, cache: String?) {
            let response = try await client.execute(HTTPClientRequest(url: nginx.url(path).absoluteString), timeout: .seconds(60))
            _ = try await response.body.collect(upTo: 16 << 20)
            return (Int(response.status.code), response.headers.first(name: "X-Cache-Status"))
        }
        do {
            let signer = replicas[0].proxy
            // Three variants of every source: each source's originals are fetched once, by one replica.
            for options in ["s:64", "s:128:96/fit:fill", "s:200/q:70"] {
                for path in sources {
                    let reply = try await get(signer.path(for: origin.url(path), options: options))
                    #expect(reply.status == 200 && reply.cache == "MISS", "\(path) \(options): \(reply)")
                }
            }
            for path in sources {
                #expect(origin.statistics(for: path).requests == 1, "\(path) was fetched \(origin.statistics(for: path).requests) times")
            }
            let served = replicas.map(\.proxy.pipeline.statistics.downloads)
            #expect(served.reduce(0, +) == sources.count)
            #expect(served.allSatisfy { $0 > 0 }, "the hash sent every source to one replica: \(served)")

            // Repeats are answered by nginx: the replicas see nothing more.
            let before = replicas.map(\.proxy.pipeline.statistics.requests)
            for path in sources {
                let reply = try await get(signer.path(for: origin.url(path), options: "s:64"))
                #expect(reply.status == 200 && reply.cache == "HIT", "\(path): \(reply)")
            }
            #expect(replicas.map(\.proxy.pipeline.statistics.requests) == before)
        } catch {
            Issue.record(error)
        }
        try? await client.shutdown()
        nginx.stop()
        for replica in replicas { await replica.stop() }
        await origin.shutdown()
    }
}
