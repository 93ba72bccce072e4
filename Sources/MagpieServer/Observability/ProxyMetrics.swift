import Prometheus

/// The proxy's Prometheus metrics (`magpie_proxy_*`) in its own registry, served at
/// `/metrics` with the pipeline's `magpie_*` metrics.
final class ProxyMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    private let inFlight: Gauge
    private let coalesced: Counter
    private let notModified: Counter

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        inFlight = registry.makeGauge(name: "magpie_proxy_requests_in_flight", help: "Image requests being answered now.")
        coalesced = registry.makeCounter(name: "magpie_proxy_coalesced_total", help: "Requests that joined identical work already running.")
        notModified = registry.makeCounter(name: "magpie_proxy_not_modified_total", help: "Requests answered 304 from their If-None-Match.")
    }

    func started() { inFlight.increment() }

    func finished(status: Int, total: Duration, timings: StageTimings) {
        inFlight.decrement()
        registry.makeCounter(name: "magpie_proxy_requests_total", labels: [("status", String(status))], help: "Image requests by response status.")
            .increment()
        registry.makeDurationHistogram(name: "magpie_proxy_request_duration_seconds", buckets: Self.buckets, help: "Time to answer an image request.")
            .record(total)
        for (stage, duration) in timings.durations {
            registry.makeDurationHistogram(
                name: "magpie_proxy_stage_duration_seconds", labels: [("stage", stage.rawValue)], buckets: Self.buckets,
                help: "Time spent per stage: queue, download, decode, process, encode."
            ).record(duration)
        }
        if status == 304 { notModified.increment() }
    }

    func cacheHit(_ tier: ResultCache.Tier) {
        registry.makeCounter(name: "magpie_proxy_cache_hits_total", labels: [("tier", tier.rawValue)], help: "Results served from a cache, by tier.")
            .increment()
    }

    func cacheMiss() {
        registry.makeCounter(name: "magpie_proxy_cache_misses_total", help: "Results that had to be made.").increment()
    }

    func joined() { coalesced.increment() }

    func served(format: String) {
        registry.makeCounter(name: "magpie_proxy_responses_by_format_total", labels: [("format", format)], help: "Images sent, by format.")
            .increment()
    }

    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]
}
