import Magpie

/// imgproxy's `/info` and thumbor's `meta/`: JSON about the source, not an image.
struct DescriptionAnswerer: Answerer {
    func answer(_ answering: inout AnswerInProgress) async throws(MagpieError) -> ImageProxy.Answer? {
        let (proxy, request) = (answering.proxy, answering.work.request)
        let body: [UInt8]
        switch answering.work.reply {
        case .image: return nil
        case .info(let asked):
            let original = try await answering.original()
            body = try await SourceDescription.info(of: original.data, request: request, asked: asked, pipeline: proxy.pipeline)
        case .meta(let options):
            let original = try await answering.original()
            body = try await proxy.pipeline.runOnDecodingThreads { () throws(MagpieError) in
                try SourceDescription.meta(of: original.data, source: request.url, options: options)
            }
        }
        return answering.answered(proxy.description(body, work: answering.work))
    }
}
