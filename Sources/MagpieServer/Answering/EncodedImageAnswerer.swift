import Magpie

/// The image itself, from the pipeline's caches or made, shared with any request making the
/// same; the chain's last step, which always answers.
struct EncodedImageAnswerer: Answerer {
    func answer(_ answering: inout AnswerInProgress) async throws(MagpieError) -> ImageProxy.Answer? {
        if case .fixed(.svg) = answering.work.encoding.format {
            throw .unsupportedFormat("SVG is written only from an SVG source, passed through; this source is not one")
        }
        let proxy = answering.proxy, metrics = proxy.metrics
        // Memory was looked in when the request was read (`lookInMemory`).
        let encoded = try await proxy.pipeline.encodedImage(for: answering.prepared, onJoin: { metrics.joined() })
        if let cache = encoded.cache { metrics.cacheHit(cache) } else { metrics.cacheMiss() }
        answering.timings.merge(encoded.timings)
        return answering.answered(proxy.success(encoded, work: answering.work, request: answering.request), cache: encoded.cache?.rawValue)
    }
}
