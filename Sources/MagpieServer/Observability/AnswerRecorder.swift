import Foundation
import Logging
import Magpie
import Tracing

/// What every answer gets on its way out, whatever answered it: `Server-Timing`, the request
/// id, `nosniff`, the metrics, one log line and the end of the request's span. The proxy's
/// answering knows none of these.
struct AnswerRecorder: Sendable {
    /// A response with the stage times it took and the cache that held it, if one did.
    typealias Answer = (response: ProxyResponse, timings: StageTimings, cache: String?)

    let metrics: ProxyMetrics
    let logger: Logger

    func recorded(_ answer: Answer, request: ProxyRequest, started: ContinuousClock.Instant, span: any Span) -> ProxyResponse {
        let (response, timings, cache) = answer
        let total = started.duration(to: .now)
        var answered = response
        answered.headers.append(("Server-Timing", timings.serverTiming(total: total, cache: cache)))
        answered.headers.append(("X-Request-Id", request.id))
        // Browsers take the proxy's Content-Type as it is, never guessing from the bytes.
        answered.headers.append(("X-Content-Type-Options", "nosniff"))
        metrics.finished(status: answered.status, total: total, timings: timings)
        // A failure on the proxy's side of the exchange (a store that refused, an origin down)
        // is the operator's to fix: the log says why, as the answer does.
        let reason = answered.status >= 500 ? Self.reason(answered) : ""
        // The line's metadata only when the line is written: at `warning` (an operator's usual
        // level under load) building it was a tenth of a memory hit.
        if logger.logLevel <= .info {
            log(answered, request: request, total: total, cache: cache, reason: reason, span: span)
        }
        RequestSpan.end(span, status: answered.status, cache: cache, reason: reason)
        return answered
    }

    private func log(_ answered: ProxyResponse, request: ProxyRequest, total: Duration, cache: String?, reason: String, span: any Span) {
        var metadata: Logger.Metadata = [
            "id": "\(request.id)", "path": "\(request.path)", "status": "\(answered.status)", "bytes": "\(answered.body.count)",
            "ms": "\(StageTimings.milliseconds(total))", "cache": "\(cache ?? "miss")",
        ]
        if let skipped = answered.headers.first(where: { $0.name == SkippedOptions.header })?.value {
            metadata["skipped"] = "\(skipped)"
        }
        if !reason.isEmpty { metadata["error"] = "\(reason)" }
        // In the request's span, so that a log handler's metadata provider names its trace.
        if span.isRecording {
            ServiceContext.$current.withValue(span.context) { logger.info("request", metadata: metadata) }
        } else {
            logger.info("request", metadata: metadata)
        }
    }

    /// The one-line reason of a failure answered as text; empty for any other answer.
    private static func reason(_ response: ProxyResponse) -> String {
        guard response.headers.contains(where: { $0 == ("Content-Type", "text/plain; charset=utf-8") }) else { return "" }
        return String(decoding: response.body.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
