import Magpie

/// The URL's own limit on the source's bytes (imgproxy's `max_src_file_size`), below the
/// operator's: a larger source is refused before it is decoded.
struct SourceLimitAnswerer: Answerer {
    func answer(_ answering: inout AnswerInProgress) async throws(MagpieError) -> ImageProxy.Answer? {
        guard let limit = answering.work.sourceByteLimit else { return nil }
        let original = try await answering.original()
        guard original.data.count <= limit else { throw .responseTooLarge(limit: limit) }
        return nil
    }
}
