import AsyncHTTPClient
import Foundation
@testable import Magpie
import MagpieOrigin
import MagpieServer
import MagpieTesting
import NIOCore
import NIOHTTP1
import Testing

/// Proxy replicas sharing results through a bucket: a result is named by what determines it,
/// not by the signature, so a replica signing with a rotated key finds what another made, and
/// answers with the same validators.
@Suite("Shared results in the proxy")
struct SharedResultsProxyTests {
    @Test func aRotatedKeyFindsTheSameResultWithTheSameETag() async throws {
        try await S3SourceTests.withStore { store, _ in
            let origin = try await ImageServer.start()
            origin.serve("/a.jpg", .image(try TestImages.texture(width: 640, height: 480, format: .jpeg)))
            let prefix = "proxy-\(UUID().uuidString.prefix(8))/"
            let oldKey = try SigningKey(keyHex: ProxyFixture.key, saltHex: ProxyFixture.salt)
            let newKey = try SigningKey(keyHex: "00112233445566778899aabbccddeeff", saltHex: "ffeeddccbbaa99887766554433221100")
            let disks = FileManager.default.temporaryDirectory.appending(path: "magpie-shared-results-\(UUID())")
            defer { try? FileManager.default.removeItem(at: disks) }
            func replica(signedWith key: SigningKey) async throws -> ProxyReplica {
                var configuration = ProxyConfiguration(cacheDirectory: disks.appending(path: UUID().uuidString))
                configuration.pipeline.addressPolicy = AddressPolicy(allowing: .loopback)
                configuration.signingKeys = [key]
                configuration.pipeline.sharedStore = SharedStore(endpoint: store.s3Endpoint(), bucket: "results", prefix: prefix)
                return try await ProxyReplica.start(configuration)
            }
            let first = try await replica(signedWith: oldKey)
            let second = try await replica(signedWith: newKey)
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            func get(_ replica: ProxyReplica, _ path: String) async throws -> (status: Int, etag: String?, body: [UInt8]) {
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(replica.port)\(path)"), timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 16 << 20)
                return (Int(response.status.code), response.headers.first(name: "ETag"), Array(body.readableBytesView))
            }
            do {
                let source = origin.url("/a.jpg").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let part = "/rs:fill:120:120/q:70/plain/\(source)"
                let made = try await get(first, URLSigner(keys: [oldKey]).sign(part))
                #expect(made.status == 200 && made.etag != nil)
                await first.proxy.pipeline.flushStores()
                let read = try await get(second, URLSigner(keys: [newKey]).sign(part))
                #expect(read.status == 200 && read.body == made.body)
                #expect(read.etag == made.etag, "every replica answers with the same validator")
                #expect(second.proxy.pipeline.statistics.variantsStored == 0, "nothing rendered")
                #expect(second.proxy.pipeline.statistics.sharedStore[.hit] == 1)
                #expect(origin.statistics(for: "/a.jpg").requests == 1)
            } catch {
                Issue.record(error)
            }
            try? await client.shutdown()
            await first.stop()
            await second.stop()
            await origin.shutdown()
        }
    }
}
