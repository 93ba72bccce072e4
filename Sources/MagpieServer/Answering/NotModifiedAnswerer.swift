import Magpie

/// A conditional request for a result no memory holds: the original's validators decide, so a
/// client that has this version costs no decoding. Conditions the operator has asked of the
/// origin go with the fetch (unless the disk holds the original), and the origin's 304 is passed
/// on without a download.
struct NotModifiedAnswerer: Answerer {
    func answer(_ answering: inout AnswerInProgress) async throws(MagpieError) -> ImageProxy.Answer? {
        let proxy = answering.proxy, work = answering.work, headers = answering.request.headers
        let validation = proxy.configuration.validation
        guard validation.isConditional(headers) else { return nil }
        var asked = work.request
        asked.headers.merge(validation.conditionsForOrigin(headers)) { $1 }
        let original: DataResponse
        switch try await fetch(asked, &answering) {
        case .original(let fetched): original = fetched
        case .notModified(let metadata):
            let validators = validation.validators(sourceETag: metadata.etag, sourceLastModified: metadata.lastModified, derivedTag: "")
            return answering.answered(proxy.notModified(validators, work: work, sourceCacheControl: metadata.cacheControl))
        }
        let validators = try await proxy.validators(of: original, work: work)
        guard validation.isCurrent(headers, validators) else { return nil }
        return answering.answered(proxy.notModified(validators, work: work, sourceCacheControl: original.metadata?.cacheControl))
    }

    private enum Fetched {
        case original(DataResponse)
        /// The origin's 304 to the conditions the request carried, with its validators.
        case notModified(HTTPMetadata)
    }

    private func fetch(_ request: ImageRequest, _ answering: inout AnswerInProgress) async throws(MagpieError) -> Fetched {
        let asked = ContinuousClock.now
        do {
            return .original(try await answering.original(of: request))
        } catch {
            // The origin's 304 ends the fetch with an error, which carries no timings.
            guard case .notModified(_, let metadata) = error else { throw error }
            answering.timings.add(ContinuousClock.now - asked, to: .download)
            return .notModified(metadata)
        }
    }
}
