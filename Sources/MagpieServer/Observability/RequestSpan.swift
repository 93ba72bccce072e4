import Magpie
package import Tracing

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
