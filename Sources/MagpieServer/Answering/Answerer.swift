import Magpie

/// One step of answering a pending request, Hummingbird-middleware style: it answers, or leaves
/// the request to the next. ``ImageProxy/answerers`` is the chain, tried in order once the
/// request is admitted.
protocol Answerer: Sendable {
    /// The answer to `answering`'s request, or `nil` to pass it on (having changed it, perhaps).
    func answer(_ answering: inout AnswerInProgress) async throws(MagpieError) -> ImageProxy.Answer?
}

/// What answering one request carries from step to step.
struct AnswerInProgress: Sendable {
    let proxy: ImageProxy
    /// The request as the client sent it.
    let request: ProxyRequest
    var work: ImageProxy.Work
    /// Where the time went: the queue, and every stage's that ran for this request.
    var timings = StageTimings()
    /// The request's keys, derived once; a mark or frame fetched on the way changes the request,
    /// and them.
    var prepared: PreparedEncoding

    init(proxy: ImageProxy, request: ProxyRequest, work: ImageProxy.Work) {
        self.proxy = proxy
        self.request = request
        self.work = work
        prepared = work.prepared
    }

    /// `response`, with the timings so far and the cache that answered, if one did.
    func answered(_ response: ProxyResponse, cache: String? = nil) -> ImageProxy.Answer {
        (response, timings, cache)
    }

    /// The source's bytes, the fetch's time (its queue and download) added to ``timings``.
    mutating func original(of request: ImageRequest? = nil) async throws(MagpieError) -> DataResponse {
        let original = try await proxy.pipeline.data(for: request ?? work.request)
        timings.merge(original.timings)
        return original
    }
}

extension ImageProxy {
    /// The answering chain: descriptions, the source as it is, not-modified, the source's limit,
    /// marks and frames, then the encoded image.
    static let answerers: [any Answerer] = [
        DescriptionAnswerer(), SourceAsItIsAnswerer(), NotModifiedAnswerer(), SourceLimitAnswerer(), MarksAnswerer(),
        EncodedImageAnswerer(),
    ]
}
