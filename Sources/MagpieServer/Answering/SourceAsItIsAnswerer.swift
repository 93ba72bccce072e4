import Magpie

/// The source's bytes as they are: always (imgproxy's `raw`), or when the source is in a format
/// the URL lists (`skip_processing`, an SVG passed through).
struct SourceAsItIsAnswerer: Answerer {
    func answer(_ answering: inout AnswerInProgress) async throws(MagpieError) -> ImageProxy.Answer? {
        let work = answering.work
        guard work.servesSourceAlways || !work.servesSourceIn.isEmpty else { return nil }
        let original = try await answering.original()
        let format = ImageFormat(sniffing: original.data)
        guard work.servesSourceAlways || work.servesSourceIn.contains(format) else { return nil }
        return answering.answered(try await answering.proxy.sourceAsItIs(original, format: format, work: work, request: answering.request))
    }
}
