import Foundation
import Logging
import Magpie
package import Tracing

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

extension StageTimings {
    /// `Server-Timing: queue;dur=0.1, download;dur=12.3, ..., total;dur=20.5` (milliseconds).
    func serverTiming(total: Duration, cache: String?) -> String {
        // One string appended to, no list joined: every answer, memory hits included, has one.
        var value = ""
        value.reserveCapacity(32 + 24 * durations.count)
        if let cache { value += "cache;desc=" + cache + ", " }
        for stage in Stage.allCases {
            if let spent = durations[stage] { value += stage.rawValue + ";dur=" + Self.milliseconds(spent) + ", " }
        }
        value += "total;dur=" + Self.milliseconds(total)
        return value
    }

    static func milliseconds(_ duration: Duration) -> String {
        // Tenths of a millisecond in integers: this runs twice per request, and String(format:)
        // went through Foundation's formatter each time.
        let tenths = duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// The span of one proxy request, under which every stage's span nests: the server span of a
/// trace that an incoming W3C `traceparent` continues, or a child of the span a surrounding
/// application (Hummingbird's `TracingMiddleware`, say) has already opened for the request.
/// With no tracer bootstrapped it is a no-op span and nothing is read from the headers.
package enum RequestSpan {
    /// Opens the request's span when the request arrives; `redacted` is its path (without the
    /// query) as the span records it, read only when the span records.
    package static func start(for request: ProxyRequest, redacted: (String) -> String) -> any Span {
        // Off (the default), nothing is read or extracted: this runs for every memory hit.
        if InstrumentationSystem.isOff { return NoOpTracer.NoOpSpan(context: .topLevel) }
        let tracer = InstrumentationSystem.tracer
        let span: any Span
        if let surrounding = ServiceContext.current {
            span = tracer.startSpan(request.method.rawValue, context: surrounding, ofKind: .internal)
        } else {
            var context = ServiceContext.topLevel
            tracer.extract(request.headers, into: &context, using: LowercasedHeaderExtractor())
            span = tracer.startSpan(request.method.rawValue, context: context, ofKind: .server)
        }
        if span.isRecording {
            span.attributes["http.request.method"] = request.method.rawValue
            span.attributes["url.path"] = redacted(String(request.path.prefix(while: { $0 != "?" })))
            span.attributes["magpie.request.id"] = request.id
        }
        return span
    }

    /// Closes the span with what was answered: the status, the cache that held the result, and
    /// an error status for a failure on the proxy's side (5xx; a client's 4xx is not the
    /// server's error, as OpenTelemetry's HTTP conventions have it).
    package static func end(_ span: any Span, status: Int, cache: String?, reason: String) {
        if span.isRecording {
            span.attributes["http.response.status_code"] = status
            if let cache { span.attributes["magpie.answered.from"] = cache }
            if status >= 500 { span.setStatus(SpanStatus(code: .error, message: reason)) }
        }
        span.end()
    }
}

/// Reads propagated context from ``ProxyRequest/headers``, whose names are lower-cased.
private struct LowercasedHeaderExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? {
        carrier[key.lowercased()]
    }
}
