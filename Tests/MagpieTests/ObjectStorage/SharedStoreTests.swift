import AsyncHTTPClient
import Foundation
import InMemoryTracing
import Logging
@testable import Magpie
import MagpieOrigin
import MagpieTesting
import NIOConcurrencyHelpers
import NIOHTTP1
import Testing
import Tracing

/// The shared store (a bucket on SeaweedFS, on loopback) as replicas use it: two pipelines with
/// their own memory and disk, one bucket behind them. What one makes, the other reads; what is
/// damaged or expired is made again, never served; a store that goes away never fails a load.
@Suite("Shared store")
struct SharedStoreTests {
    static let thumbnail = EncodingRequest(format: .fixed(.webp), quality: 75)

    static func request(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, thumbnail: .init(width: 96, height: 96, fit: .fill))
    }

    static func shared(_ endpoint: S3Endpoint, prefix: String, keeps: DiskCachePolicy = .variants) -> SharedStore {
        var settings = SharedStore(endpoint: endpoint, bucket: "results", prefix: prefix, keeps: keeps)
        // The first write to a new store makes its volume, which under Thread Sanitizer took
        // over a second; the test about a store too slow to wait for sets its own timeout.
        settings.timeout = .seconds(30)
        return settings
    }

    /// The S3 suites' shared store, each test under a prefix of its own.
    static func withStore(_ body: (SeaweedFS, String) async throws -> Void) async throws {
        try await S3SourceTests.withStore(body)
    }

    /// A second replica: the first one's configuration (the same bucket, clock and origin), its
    /// own empty disk cache and memory.
    static func replica(
        of fixture: TestFixture, adjust: (inout ImagePipeline.Configuration) -> Void = { _ in },
        _ body: (ImagePipeline) async throws -> Void
    ) async throws {
        var configuration = fixture.pipeline.configuration
        configuration.diskCache = DataCache.Configuration(directory: fixture.directory.appending(path: "replica-\(UUID().uuidString)"))
        adjust(&configuration)
        try await withImagePipeline(configuration: configuration) { try await body($0) }
    }

    static func objects(_ store: SeaweedFS) -> S3ObjectClient {
        S3ObjectClient(endpoint: store.s3Endpoint(), client: HTTPClient.shared)
    }

    @Test func whatOneReplicaRendersTheOtherReads() async throws {
        try await Self.withStore { store, prefix in
            try await withTestFixture(configure: { $0.sharedStore = Self.shared(store.s3Endpoint(), prefix: prefix) }) { fixture in
                fixture.server.serve("/a.jpg", .image(try TestImages.texture(width: 640, height: 480, format: .jpeg)))
                let request = Self.request(fixture.server.url("/a.jpg"))
                let made = try await fixture.pipeline.encodedImage(for: request, encoding: Self.thumbnail)
                await fixture.pipeline.flushStores()
                #expect(fixture.pipeline.statistics.sharedStore[.written] == 1)

                try await Self.replica(of: fixture) { other in
                    let read = try await other.encodedImage(for: request, encoding: Self.thumbnail)
                    #expect(read.data == made.data && read.format == .webp)
                    #expect(read.cache == .shared, "a hit in the shared store is said to be one, not a disk hit")
                    #expect(read.sourceValidator == made.sourceValidator, "the validators travel with the object")
                    #expect(other.statistics.variantsStored == 0, "nothing rendered")
                    #expect(other.statistics.sharedStore[.hit] == 1)
                    await other.flushStores()
                    let local = try #require(other.dataCache)
                    #expect(await local.variantCount == 1, "a hit from the store is kept on the local disk")
                }
                #expect(fixture.server.statistics(for: "/a.jpg").requests == 1, "the second replica never fetched the original")

                // Named by what determines the bytes, hashed: nothing of the URL is in the name.
                let names = try await Self.objects(store).keys(bucket: "results", prefix: prefix, limit: 10)
                #expect(names.count == 1 && names.allSatisfy { $0.hasPrefix(prefix + "variants/") && !$0.contains("a.jpg") })
                let first = try #require(names.first)
                let object = try #require(try await Self.objects(store).get(bucket: "results", key: first, limit: 1 << 20))
                #expect(object.headers.first(name: "Content-Type") == "image/webp")
                #expect(object.headers.first(name: "x-amz-meta-magpie-sha256") == DiskEntryFormat.sha256Hex(made.data))
            }
        }
    }

    /// The store's reads and writes are spans of the stage that asked, with how they went: an
    /// operator sees a slow or failing store inside the request it slowed.
    @Test func theStoresRequestsAreSpansOfTheStageThatAsked() async throws {
        let tracer = InMemoryTracer()
        try await Self.withStore { store, prefix in
            try await withTestFixture(configure: { $0.sharedStore = Self.shared(store.s3Endpoint(), prefix: prefix) }) { fixture in
                fixture.server.serve("/t.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg)))
                let request = Self.request(fixture.server.url("/t.jpg"))
                let made = try await withTracer(tracer) {
                    let made = try await fixture.pipeline.encodedImage(for: request, encoding: Self.thumbnail)
                    await fixture.pipeline.flushStores()
                    return made
                }
                let spans = tracer.finishedSpans
                let encode = try StageSpanTests.span("magpie.encode", in: spans)
                let read = try #require(spans.first { $0.operationName == "magpie.store.read" && $0.spanContext.parentSpanID == encode.spanContext.spanID })
                #expect(read.attributes["magpie.store.entry"]?.toSpanAttribute() == .string("variant"))
                #expect(read.attributes["magpie.store.found"]?.toSpanAttribute() == .bool(false))
                let get = try #require(spans.first { $0.operationName == "magpie.shared_store.get" })
                #expect(get.spanContext.parentSpanID == read.spanContext.spanID)
                #expect(get.attributes["magpie.store.outcome"]?.toSpanAttribute() == .string("miss"))
                let put = try #require(spans.first { $0.operationName == "magpie.shared_store.put" })
                #expect(put.spanContext.parentSpanID == encode.spanContext.spanID, "the write, in the background, under the encode that made it")
                #expect(put.attributes["magpie.store.outcome"]?.toSpanAttribute() == .string("written"))
                #expect(Set([encode.traceID, read.traceID, get.traceID, put.traceID]).count == 1)

                let replicaTracer = InMemoryTracer()
                try await Self.replica(of: fixture) { other in
                    _ = try await withTracer(replicaTracer) { try await other.encodedImage(for: request, encoding: Self.thumbnail) }
                }
                let hit = try #require(replicaTracer.finishedSpans.first { $0.operationName == "magpie.shared_store.get" })
                #expect(hit.attributes["magpie.store.outcome"]?.toSpanAttribute() == .string("hit"))
                #expect(hit.attributes["magpie.bytes"]?.toSpanAttribute() == .int64(Int64(made.data.count)))
            }
        }
    }

    @Test func aProcessedImageIsSharedTheSameWay() async throws {
        try await Self.withStore { store, prefix in
            try await withTestFixture(configure: {
                $0.sharedStore = Self.shared(store.s3Endpoint(), prefix: prefix)
                $0.diskCachePolicy = .variants
            }) { fixture in
                fixture.server.serve("/p.png", .image(try TestImages.texture(width: 300, height: 200, format: .png)))
                let request = ImageRequest(url: fixture.server.url("/p.png"), processors: [.resize(width: 40, height: 40, fit: .fill)])
                let made = try await fixture.pipeline.image(for: request)
                await fixture.pipeline.flushStores()
                try await Self.replica(of: fixture) { other in
                    let read = try await other.image(for: request)
                    #expect(read.source == .disk)
                    #expect(read.image.width == 40 && read.image.height == 40 && made.image.width == 40)
                    #expect(other.statistics.variantsStored == 0 && other.statistics.sharedStore[.hit] == 1)
                }
            }
        }
    }

    /// A fleet of crawlers sharing their downloads.
    @Test func originalsAreSharedWhenAsked() async throws {
        try await Self.withStore { store, prefix in
            try await withTestFixture(configure: { $0.sharedStore = Self.shared(store.s3Endpoint(), prefix: prefix, keeps: .originals) }) { fixture in
                let photo = try TestImages.texture(width: 500, height: 300, format: .jpeg)
                fixture.server.serve("/o.jpg", .image(photo))
                let url = fixture.server.url("/o.jpg")
                _ = try await fixture.pipeline.image(for: url)
                await fixture.pipeline.flushStores()
                try await Self.replica(of: fixture) { other in
                    let image = try await other.image(for: url)
                    #expect(image.width == 500)
                    #expect(other.statistics.downloads == 0 && other.statistics.sharedStore[.hit] == 1)
                    await other.flushStores()
                    #expect(await other.dataCache?.entry(for: url.absoluteString)?.data == photo)
                }
                #expect(fixture.server.statistics(for: "/o.jpg").requests == 1)
            }
        }
    }

    @Test func aVariantIsWrittenOnceAndRetiredWithItsOriginal() async throws {
        try await Self.withStore { store, prefix in
            let recorder = PipelineRecorder(metricsFactory: nil)
            let shared = S3DataStore(
                settings: Self.shared(store.s3Endpoint(), prefix: prefix), client: HTTPClient.shared, recorder: recorder, logger: Logger(label: "test"),
                now: { Date() }, clock: { ContinuousClock.now })
            let metadata = HTTPMetadata(etag: "\"e1\"", contentType: "image/webp", redirects: [URL(string: "https://a.example/ሴ x")!])
            shared.storeVariant(Array("first".utf8), for: "https://a.example/1", variant: "w=10", metadata: metadata)
            await shared.flush()
            shared.storeVariant(Array("second".utf8), for: "https://a.example/1", variant: "w=10", metadata: metadata)
            shared.storeVariant(Array("other".utf8), for: "https://a.example/1", variant: "w=20", metadata: metadata)
            await shared.flush()
            #expect(recorder.snapshot.sharedStore[.written] == 2 && recorder.snapshot.sharedStore[.alreadyThere] == 1)
            let read = try #require(await shared.variantEntry(for: "https://a.example/1", variant: "w=10"))
            #expect(read.data == Array("first".utf8), "the first write stands")
            #expect(read.metadata == metadata)
            #expect(await shared.variantEntry(for: "https://a.example/1", variant: "w=30") == nil)

            await shared.removeVariants(of: "https://a.example/1")
            #expect(await shared.variantEntry(for: "https://a.example/1", variant: "w=10") == nil)
            #expect(await shared.variantEntry(for: "https://a.example/1", variant: "w=20") == nil)
            #expect(try await Self.objects(store).keys(bucket: "results", prefix: prefix, limit: 10).isEmpty)
        }
    }

    /// A slow store cannot make the process hold every result it made: writes past the
    /// budget are dropped and counted, and a load never waits for them.
    @Test func writesBeyondTheBudgetAreDropped() async throws {
        try await Self.withStore { store, prefix in
            let recorder = PipelineRecorder(metricsFactory: nil)
            var settings = Self.shared(store.s3Endpoint(), prefix: prefix)
            settings.maximumPendingBytes = 1000
            let shared = S3DataStore(
                settings: settings, client: HTTPClient.shared, recorder: recorder, logger: Logger(label: "test"), now: { Date() },
                clock: { ContinuousClock.now })
            shared.storeVariant([UInt8](repeating: 1, count: 1001), for: "https://a.example/big", variant: "w=1")
            shared.storeVariant([UInt8](repeating: 2, count: 600), for: "https://a.example/small", variant: "w=1")
            await shared.flush()
            #expect(recorder.snapshot.sharedStore[.dropped] == 1 && recorder.snapshot.sharedStore[.written] == 1)
            #expect(await shared.variantEntry(for: "https://a.example/big", variant: "w=1") == nil)
            #expect(await shared.variantEntry(for: "https://a.example/small", variant: "w=1")?.data.count == 600)
        }
    }

    @Test func anExpiredVariantIsMadeAgain() async throws {
        try await Self.withStore { store, prefix in
            try await withTestFixture(configure: {
                $0.sharedStore = Self.shared(store.s3Endpoint(), prefix: prefix)
                $0.encodedImageMaxAge = .seconds(60)
            }) { fixture in
                fixture.server.serve("/e.jpg", .image(try TestImages.texture(width: 400, height: 300, format: .jpeg)))
                let request = Self.request(fixture.server.url("/e.jpg"))
                _ = try await fixture.pipeline.encodedImage(for: request, encoding: Self.thumbnail)
                await fixture.pipeline.flushStores()
                fixture.clock.advance(by: .seconds(120))
                try await Self.replica(of: fixture) { other in
                    _ = try await other.encodedImage(for: request, encoding: Self.thumbnail)
                    await other.flushStores()
                    #expect(other.statistics.sharedStore[.expired] == 1)
                    #expect(other.statistics.variantsStored == 1, "rendered again")
                    #expect(other.statistics.sharedStore[.written] == 1, "the expired object was replaced")
                }
                try await Self.replica(of: fixture) { third in
                    _ = try await third.encodedImage(for: request, encoding: Self.thumbnail)
                    #expect(third.statistics.sharedStore[.hit] == 1 && third.statistics.variantsStored == 0)
                }
            }
        }
    }

    @Test(arguments: ["truncated", "altered"])
    func aDamagedObjectIsRenderedAgainNeverServed(damage: String) async throws {
        try await Self.withStore { store, prefix in
            try await withTestFixture(configure: { $0.sharedStore = Self.shared(store.s3Endpoint(), prefix: prefix) }) { fixture in
                fixture.server.serve("/d.jpg", .image(try TestImages.texture(width: 640, height: 480, format: .jpeg)))
                let request = Self.request(fixture.server.url("/d.jpg"))
                let made = try await fixture.pipeline.encodedImage(for: request, encoding: Self.thumbnail)
                await fixture.pipeline.flushStores()

                // The object replaced behind the store's back, its metadata (checksum included) kept.
                let objects = Self.objects(store)
                let name = try #require(try await objects.keys(bucket: "results", prefix: prefix + "variants/", limit: 10).first)
                let object = try #require(try await objects.get(bucket: "results", key: name, limit: 1 << 20))
                var bytes = object.body
                if damage == "truncated" { bytes.removeLast(bytes.count / 3) } else { bytes[bytes.count / 2] ^= 0x20 }
                var fields: [String: String] = [:]
                for (header, value) in object.headers where header.lowercased().hasPrefix("x-amz-meta-") {
                    fields[String(header.dropFirst("x-amz-meta-".count))] = value
                }
                _ = try await objects.put(bytes, bucket: "results", key: name, contentType: "image/webp", metadata: fields, once: false)

                try await Self.replica(of: fixture) { other in
                    let read = try await other.encodedImage(for: request, encoding: Self.thumbnail)
                    #expect(read.data != bytes, "the damaged bytes are never served")
                    #expect(ImageFormat(sniffing: read.data) == .webp && read.data.count == made.data.count)
                    #expect(other.statistics.sharedStore[.damaged] == 1)
                    #expect(other.statistics.variantsStored == 1, "rendered again")
                    await other.flushStores()
                    #expect(other.statistics.sharedStore[.written] == 1, "the damaged object was removed and written anew")
                }
                let whole = try #require(try await objects.get(bucket: "results", key: name, limit: 1 << 20))
                #expect(whole.body == made.data)
            }
        }
    }

    /// The store stops answering mid-run and comes back: loads never fail, the failure is
    /// logged once and counted, the store is left alone meanwhile and used again afterwards.
    @Test func theStoreGoingAwayAndComingBack() async throws {
        try await Self.withStore { store, prefix in
            let logs = LogRecorder()
            let relay = try await StoreRelay(to: store)
            var endpoint = store.s3Endpoint()
            endpoint.url = URL(string: "http://127.0.0.1:\(relay.port)")!
            try await withTestFixture(configure: {
                $0.sharedStore = Self.shared(endpoint, prefix: prefix)
                $0.logger = logs.logger(label: "test")
            }) { fixture in
                for name in ["1", "2", "3", "4"] {
                    fixture.server.serve("/\(name).jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg, seed: UInt32(name)!)))
                }
                let pipeline = fixture.pipeline
                _ = try await pipeline.encodedImage(for: Self.request(fixture.server.url("/1.jpg")), encoding: Self.thumbnail)
                await pipeline.flushStores()
                #expect(pipeline.statistics.sharedStore[.written] == 1)

                await relay.stop()
                let second = try await pipeline.encodedImage(for: Self.request(fixture.server.url("/2.jpg")), encoding: Self.thumbnail)
                #expect(ImageFormat(sniffing: second.data) == .webp, "answered without the store")
                _ = try await pipeline.encodedImage(for: Self.request(fixture.server.url("/3.jpg")), encoding: Self.thumbnail)
                await pipeline.flushStores()
                #expect(pipeline.statistics.sharedStore[.failed] == 1, "tried once")
                #expect((pipeline.statistics.sharedStore[.skipped] ?? 0) >= 2, "then left alone")
                #expect(logs.messages(atLeast: .error).count { $0.message.contains("shared store failed") } == 1, "logged once")

                try await relay.start()
                fixture.clock.advance(by: .seconds(6))
                _ = try await pipeline.encodedImage(for: Self.request(fixture.server.url("/4.jpg")), encoding: Self.thumbnail)
                await pipeline.flushStores()
                #expect(pipeline.statistics.sharedStore[.written] == 2, "used again once it answers")
                #expect(logs.messages(atLeast: .notice).contains { $0.message.contains("answers again") })
            }
            await relay.stop()
        }
    }

    /// A store that accepts the connection and never answers holds a load for its timeout, no
    /// longer.
    @Test func aStoreThatNeverAnswersIsGivenUpOn() async throws {
        try await Self.withStore { store, prefix in
            try await S3SourceTests.withRelay(to: store, cuttingAfter: 0, mode: "stall") { endpoint in
                try await withTestFixture(configure: {
                    var settings = Self.shared(endpoint, prefix: prefix)
                    settings.timeout = .milliseconds(300)
                    $0.sharedStore = settings
                }) { fixture in
                    fixture.server.serve("/s.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg)))
                    let encoded = try await fixture.pipeline.encodedImage(for: Self.request(fixture.server.url("/s.jpg")), encoding: Self.thumbnail)
                    #expect(ImageFormat(sniffing: encoded.data) == .webp)
                    #expect(fixture.pipeline.statistics.sharedStore[.failed] == 1)
                    #expect(fixture.pipeline.statistics.variantsStored == 1)
                }
            }
        }
    }
}

/// A relay in front of the store (Tests/Reference/cutting_relay.py, never cutting) that can be
/// stopped and started again on the same port: the store going away and coming back.
final class StoreRelay: Sendable {
    let port: Int
    private let target: Int
    private let log: URL
    private let process: NIOLockedValueBox<DaemonProcess?>

    init(to store: SeaweedFS) async throws {
        target = store.endpoint.port!
        log = FileManager.default.temporaryDirectory.appending(path: "magpie-relay-\(UUID().uuidString).log")
        let script = SigV4Tests.reference.appending(path: "cutting_relay.py")
        let (port, daemon) = try await LoopbackPort.retryingIfTaken { [target, log] port in
            try await DaemonProcess(
                executable: "python3", arguments: [script.path, "\(port)", "\(target)", "\(Int.max)"], port: port, outputFile: log)
        }
        self.port = port
        process = NIOLockedValueBox(daemon)
    }

    func start() async throws {
        let script = SigV4Tests.reference.appending(path: "cutting_relay.py")
        let daemon = try await DaemonProcess(
            executable: "python3", arguments: [script.path, "\(port)", "\(target)", "\(Int.max)"], port: port, outputFile: log)
        process.withLockedValue { $0 = daemon }
    }

    func stop() async {
        let daemon = process.withLockedValue { process in
            defer { process = nil }
            return process
        }
        await daemon?.killed()
    }
}
