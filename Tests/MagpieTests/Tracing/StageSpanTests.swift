import Foundation
import InMemoryTracing
@testable import Magpie
import MagpieOrigin
import MagpieTesting
import Testing
import Tracing

/// The stages' spans as a library user's tracer sees them (bound to the task with
/// `withTracer`, as a process bootstraps one): one trace per load, the stages nested in the
/// order they wait for each other, a joined request linked to the work it joined, a failure
/// recorded where it happened.
@Suite("Stage spans")
struct StageSpanTests {
    static func span(_ name: String, in spans: [FinishedInMemorySpan]) throws -> FinishedInMemorySpan {
        try #require(spans.first { $0.operationName == name && $0.attributes["magpie.joined"] == nil }, "no \(name) span")
    }

    @Test func aLoadsStagesNestInOneTrace() async throws {
        let tracer = InMemoryTracer()
        let photo = try TestImages.texture(width: 320, height: 240, format: .jpeg)
        let request = try await withTestFixture { fixture in
            fixture.server.serve("/a.jpg", .image(photo))
            let request = ImageRequest(url: fixture.server.url("/a.jpg"), processors: [.resize(width: 64, height: 64, fit: .fill)])
            try await withTracer(tracer) {
                _ = try await fixture.pipeline.image(for: request)
            }
            return request
        }
        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName).sorted() == ["magpie.decode", "magpie.fetch", "magpie.load", "magpie.process", "magpie.store.read"])
        #expect(Set(spans.map(\.traceID)).count == 1, "one trace")
        let (load, process, decode, fetch) = (
            try Self.span("magpie.load", in: spans), try Self.span("magpie.process", in: spans), try Self.span("magpie.decode", in: spans),
            try Self.span("magpie.fetch", in: spans)
        )
        #expect(load.spanContext.parentSpanID == nil)
        #expect(process.spanContext.parentSpanID == load.spanContext.spanID)
        #expect(decode.spanContext.parentSpanID == process.spanContext.spanID)
        #expect(fetch.spanContext.parentSpanID == decode.spanContext.spanID)
        // The fixture's disk cache looked in for the original first.
        let read = try Self.span("magpie.store.read", in: spans)
        #expect(read.spanContext.parentSpanID == fetch.spanContext.spanID)
        #expect(read.attributes["magpie.store.entry"]?.toSpanAttribute() == .string("original"))
        #expect(read.attributes["magpie.store.found"]?.toSpanAttribute() == .bool(false))

        // What an operator filters on.
        #expect(fetch.attributes["magpie.source.host"]?.toSpanAttribute() == .string("127.0.0.1"))
        #expect(fetch.attributes["magpie.bytes"]?.toSpanAttribute() == .int64(Int64(photo.count)))
        #expect(fetch.attributes["magpie.answered.from"]?.toSpanAttribute() == .string("network"))
        #expect(decode.attributes["magpie.image.width"]?.toSpanAttribute() == .int64(320))
        #expect(decode.attributes["magpie.image.format"]?.toSpanAttribute() == .string("jpeg"))
        #expect(process.attributes["magpie.processor"]?.toSpanAttribute() == .string(request.processors[0].identifier))
        #expect(load.attributes["magpie.image.width"]?.toSpanAttribute() == .int64(64))
    }

    /// Without a memory cache a layout is made by the decode stage: one that only scales in one
    /// libvips pipeline, one that blurs too on the decoded bitmap, with no process stage
    /// between (the processor's run counted all the same), and no decode begun and handed back.
    @Test(arguments: [false, true])
    func aLayoutIsMadeByTheDecodeStage(_ blurred: Bool) async throws {
        let tracer = InMemoryTracer()
        let photo = try TestImages.texture(width: 320, height: 240, format: .jpeg)
        let statistics = try await withTestFixture(configure: { $0.memoryCache = nil }) { fixture in
            fixture.server.serve("/a.jpg", .image(photo))
            var layout = Layout()
            (layout.width, layout.height, layout.resizing) = (64, 64, .fill)
            let request = ImageRequest(url: fixture.server.url("/a.jpg"), processors: [.layout(layout, filters: blurred ? [.blur(sigma: 2)] : [])])
            try await withTracer(tracer) {
                _ = try await fixture.pipeline.encodedImage(for: request, encoding: EncodingRequest(format: .fixed(.webp), quality: 70))
            }
            return fixture.pipeline.statistics
        }
        let decodes = tracer.finishedSpans.filter { $0.operationName == "magpie.decode" }
        #expect(decodes.count == 1, "\(decodes.map(\.attributes))")
        #expect(decodes.first?.attributes["magpie.one_pass"]?.toSpanAttribute() == .bool(!blurred))
        #expect(decodes.first?.attributes["magpie.image.width"]?.toSpanAttribute() == .int64(64))
        #expect(statistics.onePassEncodes == (blurred ? 0 : 1))
        #expect(statistics.decodes == 1)
        #expect(statistics.processorRuns == (blurred ? 1 : 0))
        #expect(tracer.finishedSpans.filter { $0.operationName == "magpie.process" }.isEmpty)
    }

    @Test func aRequestJoiningAnEncodeLinksToItsWork() async throws {
        try await Self.expectJoined("magpie.encode") { pipeline, request in
            _ = try await pipeline.encodedImage(for: request, encoding: EncodingRequest(format: .fixed(.webp), quality: 70))
        }
    }

    @Test func aLoadJoiningALoadLinksToItsWork() async throws {
        try await Self.expectJoined("magpie.load") { pipeline, request in _ = try await pipeline.image(for: request) }
    }

    /// Two identical requests, the second made while the first's download is held: the second
    /// gets a span `stage` of its own trace, linked to the work's span, ending when the work
    /// does, and the work runs once.
    static func expectJoined(
        _ stage: String, sourceLocation: SourceLocation = #_sourceLocation, _ load: @escaping @Sendable (ImagePipeline, ImageRequest) async throws -> Void
    ) async throws {
        let tracer = InMemoryTracer()
        try await withTestFixture { fixture in
            let gate = Gate()
            fixture.server.serve("/joined.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg), gate: gate))
            let request = ImageRequest(url: fixture.server.url("/joined.jpg"), processors: [.resize(width: 64, height: 64, fit: .fill)])
            let pipeline = fixture.pipeline
            try await withTracer(tracer) {
                async let first: Void = load(pipeline, request)
                try await waitUntil { fixture.server.totalRequests == 1 }
                async let second: Void = load(pipeline, request)
                try await waitUntil { pipeline.statistics.coalesced >= 1 }
                gate.open()
                _ = try await (first, second)
            }
        }
        let spans = tracer.finishedSpans
        let work = try Self.span(stage, in: spans)
        let joined = try #require(spans.first { $0.operationName == stage && $0.attributes["magpie.joined"] != nil }, sourceLocation: sourceLocation)
        #expect(joined.traceID != work.traceID, "the joining request has its own trace", sourceLocation: sourceLocation)
        #expect(
            joined.links.compactMap { $0.context.inMemorySpanContext?.spanID } == [work.spanContext.spanID], "linked to the work's span",
            sourceLocation: sourceLocation)
        // Made while the download was held, so it starts after the work and lasts its wait.
        #expect(joined.startInstant.nanosecondsSinceEpoch > work.startInstant.nanosecondsSinceEpoch, sourceLocation: sourceLocation)
        #expect(joined.endInstant.nanosecondsSinceEpoch >= work.endInstant.nanosecondsSinceEpoch, "it lasts until the work ends", sourceLocation: sourceLocation)
        #expect(spans.filter { $0.operationName == "magpie.fetch" }.count == 1, "the work ran once", sourceLocation: sourceLocation)
    }

    @Test func aFailureIsRecordedOnTheStageThatFailed() async throws {
        let tracer = InMemoryTracer()
        try await withTestFixture { fixture in
            fixture.server.serve("/missing.jpg", .status(404))
            await withTracer(tracer) {
                _ = try? await fixture.pipeline.image(for: fixture.server.url("/missing.jpg"))
            }
        }
        let spans = tracer.finishedSpans
        let fetch = try Self.span("magpie.fetch", in: spans)
        #expect(fetch.errors.count == 1)
        #expect(fetch.status?.code == .error)
        // The stages that waited for it failed too, and say so, without recording it again.
        for stage in ["magpie.decode", "magpie.load"] {
            let waiting = try Self.span(stage, in: spans)
            #expect(waiting.status?.code == .error, "\(stage)")
            #expect(waiting.errors.isEmpty, "\(stage)")
        }
    }
}
