import Foundation
@testable import Magpie
import MagpieTesting
import Testing

/// `s3://bucket/key` sources through the pipeline's public interface, from SeaweedFS on
/// loopback: a real store that checks signatures, answers ranges and conditional requests.
@Suite("S3 sources")
struct S3SourceTests {
    static let photo: [UInt8] = (try? TestImages.texture(width: 1200, height: 900, format: .jpeg)) ?? []
    static let other: [UInt8] = (try? TestImages.texture(width: 300, height: 200, format: .jpeg, seed: 3)) ?? []

    /// The store every S3 suite shares (one for the tests running at once: a store per test
    /// starved two cores), with the buckets they use and a key prefix of this test's own.
    static func withStore(_ body: (SeaweedFS, String) async throws -> Void) async throws {
        let prefix = "t-\(UUID().uuidString.prefix(8).lowercased())/"
        try await SeaweedFS.sharing(buckets: ["photos", "private", "results"]) { store in try await body(store, prefix) }
    }

    /// `s3://bucket/key` with the key percent-encoded where a URL needs it.
    static func url(bucket: String, key: String) throws -> URL {
        S3ObjectClient.url(bucket: bucket, key: key)
    }

    static func configure(_ configuration: inout ImagePipeline.Configuration, _ endpoint: S3Endpoint) {
        configuration.sourceLoaders["s3"] = S3Loader(endpoint: endpoint)
    }

    @Test func aKeyWithAnyCharactersLoadsAndIsKeptOnDisk() async throws {
        try await Self.withStore { store, prefix in
            let key = "albums/2026/a b+ሴ=&(1)'~.jpg"
            try await store.put(Self.photo, bucket: "photos", key: key)
            try await withTestFixture(configure: { Self.configure(&$0, store.s3Endpoint()) }) { fixture in
                let url = try Self.url(bucket: "photos", key: key)
                let image = try await fixture.pipeline.image(for: url)
                #expect((image.width, image.height) == (1200, 900))
                #expect(fixture.pipeline.statistics.downloads == 1)
                let cache = try #require(fixture.pipeline.dataCache)
                await cache.flush()
                let entry = try #require(await cache.entry(for: url.absoluteString))
                #expect(entry.data == Self.photo)
                #expect(entry.metadata.etag != nil, "the store's ETag is kept to revalidate with")
            }
        }
    }

    @Test func cachedBytesAreRevalidatedWithTheETag() async throws {
        try await Self.withStore { store, prefix in
            try await store.put(Self.photo, bucket: "photos", key: prefix + "a.jpg")
            try await withTestFixture(configure: { Self.configure(&$0, store.s3Endpoint()) }) { fixture in
                let url = try Self.url(bucket: "photos", key: prefix + "a.jpg")
                _ = try await fixture.pipeline.image(for: url)
                let refresh = ImageRequest(url: url, options: .refreshCached)
                let same = try await fixture.pipeline.image(for: refresh).image
                #expect((same.width, same.height) == (1200, 900))
                #expect(fixture.pipeline.statistics.revalidated == 1, "the store answered 304")
                #expect(fixture.pipeline.statistics.downloads == 2)
                #expect(fixture.pipeline.statistics.bytesDownloaded == Self.photo.count, "no body came with the 304")

                try await store.put(Self.other, bucket: "photos", key: prefix + "a.jpg")
                let changed = try await fixture.pipeline.image(for: refresh).image
                #expect((changed.width, changed.height) == (300, 200))
                #expect(fixture.pipeline.statistics.revalidated == 1)
            }
        }
    }

    @Test func aWrongSecretIsRefusedWithTheStoresReason() async throws {
        try await Self.withStore { store, prefix in
            try await store.put(Self.photo, bucket: "photos", key: prefix + "a.jpg")
            let wrong = AWSCredentials(accessKeyID: store.credentials.accessKeyID, secretAccessKey: "not-the-secret")
            try await withTestFixture(configure: { Self.configure(&$0, store.s3Endpoint(credentials: wrong)) }) { fixture in
                let url = try Self.url(bucket: "photos", key: prefix + "a.jpg")
                do {
                    _ = try await fixture.pipeline.image(for: url)
                    Issue.record("a request signed with the wrong secret loaded")
                } catch MagpieError.sourceRefused(let failed, let status, let reason) {
                    #expect(failed == url)
                    #expect(status == 403)
                    #expect(reason.hasPrefix("SignatureDoesNotMatch: "), "\(reason)")
                }
            }
        }
    }

    @Test func aMissingKeyOrBucketIsNotFound() async throws {
        try await Self.withStore { store, prefix in
            try await withTestFixture(configure: { Self.configure(&$0, store.s3Endpoint()) }) { fixture in
                for url in [try Self.url(bucket: "photos", key: prefix + "missing.jpg"), try Self.url(bucket: "no-such-bucket", key: prefix + "a.jpg")] {
                    await #expect(throws: MagpieError.sourceNotFound(url)) { try await fixture.pipeline.image(for: url) }
                }
            }
        }
    }

    /// The policy names the buckets that may be read; another bucket is refused before the
    /// store is asked, though the object is there and the keys could read it.
    @Test func aBucketThePolicyDoesNotAllowIsRefused() async throws {
        try await Self.withStore { store, prefix in
            try await store.put(Self.photo, bucket: "private", key: prefix + "a.jpg")
            let url = try Self.url(bucket: "private", key: prefix + "a.jpg")
            try await withTestFixture(configure: { Self.configure(&$0, store.s3Endpoint()) }) { fixture in
                _ = try await fixture.pipeline.image(for: url)
            }
            try await withTestFixture(configure: { configuration in
                Self.configure(&configuration, store.s3Endpoint())
                configuration.sourcePolicy = SourcePolicy(allowedPrefixes: [try! #require(SourcePrefix("s3://photos/"))])
            }) { fixture in
                await #expect(throws: MagpieError.sourceNotAllowed(host: "private", hop: 0, url: url)) {
                    try await fixture.pipeline.image(for: url)
                }
                #expect(fixture.pipeline.statistics.downloads == 0)
            }
        }
    }

    /// An endpoint reaching `store` through Tests/Reference/cutting_relay.py, which cuts the
    /// first answer after `cut` bytes (`mode`: `close` or `stall`).
    static func withRelay(
        to store: SeaweedFS, cuttingAfter cut: Int, mode: String, _ body: (S3Endpoint) async throws -> Void
    ) async throws {
        let log = FileManager.default.temporaryDirectory.appending(path: "magpie-relay-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let script = SigV4Tests.reference.appending(path: "cutting_relay.py")
        let (port, relay) = try await LoopbackPort.retryingIfTaken { port in
            try await DaemonProcess(
                executable: "python3", arguments: [script.path, "\(port)", "\(store.endpoint.port!)", "\(cut)", mode], port: port,
                outputFile: log)
        }
        defer { relay.stop() }
        var endpoint = store.s3Endpoint()
        endpoint.url = URL(string: "http://127.0.0.1:\(port)")!
        try await body(endpoint)
    }

    /// A body the network cuts short is resumed from the store with a range.
    @Test func aBodyCutShortIsResumed() async throws {
        try await Self.withStore { store, prefix in
            try await store.put(Self.photo, bucket: "photos", key: prefix + "big.jpg")
            let cut = 200_000
            try #require(Self.photo.count > cut + 50_000)
            try await Self.withRelay(to: store, cuttingAfter: cut, mode: "close") { endpoint in
                try await withTestFixture(configure: { Self.configure(&$0, endpoint) }) { fixture in
                    let url = try Self.url(bucket: "photos", key: prefix + "big.jpg")
                    await #expect(throws: MagpieError.self) { try await fixture.pipeline.image(for: url) }
                    let image = try await fixture.pipeline.image(for: url)
                    #expect((image.width, image.height) == (1200, 900))
                    #expect(fixture.pipeline.statistics.resumedDownloads == 1)
                    // What came before the cut (the answer's head aside) was not asked for again.
                    let downloaded = fixture.pipeline.statistics.bytesDownloaded
                    #expect(downloaded > Self.photo.count - cut && downloaded < Self.photo.count - cut + 2_000, "\(downloaded) of \(Self.photo.count) bytes")
                    let cache = try #require(fixture.pipeline.dataCache)
                    await cache.flush()
                    #expect(await cache.entry(for: url.absoluteString)?.data == Self.photo)
                }
            }
        }
    }

    /// A load cancelled mid-transfer (the answer stalls after `cut` bytes) stops it and keeps
    /// what arrived: the next load asks the store for the rest.
    @Test func aCancelledLoadStopsTheTransferAndTheNextResumes() async throws {
        try await Self.withStore { store, prefix in
            try await store.put(Self.photo, bucket: "photos", key: prefix + "big.jpg")
            let cut = 150_000
            try await Self.withRelay(to: store, cuttingAfter: cut, mode: "stall") { endpoint in
                try await withTestFixture(configure: { Self.configure(&$0, endpoint) }) { fixture in
                    let url = try Self.url(bucket: "photos", key: prefix + "big.jpg")
                    let task = fixture.pipeline.imageTask(with: ImageRequest(url: url))
                    for await event in task.events {
                        if case .progress(let received, _) = event, received >= cut - 2_000 { break }
                    }
                    task.cancel()
                    await #expect(throws: MagpieError.cancelled) { try await task.response }
                    // The load is over for its caller at once; its transfer stops on the event
                    // loop a moment later, and keeps what arrived.
                    try await waitUntil { fixture.pipeline.context.loader.partials?.usage.count == 1 }
                    let image = try await fixture.pipeline.image(for: url)
                    #expect((image.width, image.height) == (1200, 900))
                    #expect(fixture.pipeline.statistics.resumedDownloads == 1)
                    #expect(fixture.pipeline.statistics.bytesDownloaded < Self.photo.count - cut + 2_000)
                }
            }
        }
    }
}
