import Magpie

/// Fetches or draws the watermark and the frame a URL names, when they were not ready at reading,
/// and puts them in the request; a mark that cannot be had is the answer.
struct MarksAnswerer: Answerer {
    func answer(_ answering: inout AnswerInProgress) async throws(MagpieError) -> ImageProxy.Answer? {
        let proxy = answering.proxy, work = answering.work
        guard work.pendingMark != nil || work.pendingFrame != nil else { return nil }
        var mark = work.readyMark, plan = work.plan
        if let pending = work.pendingMark {
            switch await proxy.markImage(pending) {
            case .success(let made): mark = made
            case .failure(.drawing(let reason)): return answering.answered(proxy.failure(400, "the watermark's text cannot be drawn: \(reason)"))
            case .failure(.loading(let error)):
                return answering.answered(proxy.failure(work.grammar.status(forMark: error), "the watermark: \(error.description)"))
            }
        }
        if let frame = work.pendingFrame {
            switch await proxy.framePatch(frame) {
            case .success(let patch): plan = plan.framed(with: patch)
            case .failure(let error): return answering.answered(proxy.failure(work.grammar.status(forMark: error), "the frame: \(error.description)"))
            }
        }
        answering.work.request = plan.imageRequest(for: work.request.url, mark: mark)
        answering.prepared = proxy.pipeline.prepare(answering.work.request, encoding: work.encoding, replacing: answering.prepared)
        return nil
    }
}
