import Foundation
import InMemoryTracing
import Magpie
import MagpieTesting
import Testing
import Tracing

// The Observing the proxy article's Swift snippet, compiled and run.
func loadTraced(_ url: URL, pipeline: ImagePipeline, tracer: some Tracer) async throws -> DecodedImage {
    try await withTracer(tracer) {
        try await tracer.withSpan("thumbnail") { _ in
            try await pipeline.image(for: url)
        }
    }
}

@Suite("Observing the proxy article")
struct ObservingTheProxyArticleTests {
    @Test func theLibrarysStagesNestUnderTheCallersSpan() async throws {
        let tracer = InMemoryTracer()
        try await withTestFixture { fixture in
            fixture.server.serve("/a.jpg", .image(try TestImages.texture(width: 320, height: 240, format: .jpeg)))
            let image = try await loadTraced(fixture.server.url("/a.jpg"), pipeline: fixture.pipeline, tracer: tracer)
            #expect(image.width == 320)
        }
        let spans = tracer.finishedSpans
        let caller = try #require(spans.first { $0.operationName == "thumbnail" })
        let load = try #require(spans.first { $0.operationName == "magpie.load" })
        #expect(load.spanContext.parentSpanID == caller.spanContext.spanID)
        #expect(Set(spans.map(\.traceID)) == [caller.traceID])
    }
}
