import Magpie
import Prometheus

/// The proxy's Prometheus metrics (`magpie_proxy_*`, and imgproxy's names beside them) in its
/// own registry, served at `/metrics` with the pipeline's `magpie_*` metrics.
final class ProxyMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let imgproxy: ImgproxyMetrics
    private let inFlight: Gauge
    private let queued: Gauge
    private let coalesced: Counter
    private let notModified: Counter
    /// Made once, every labelled metric here: looking one up in the registry takes a lock,
    /// checks its name and help text and builds its labels (a sixth of a memory hit's time).
    private let requestsByStatus: [Int: Counter]
    private let cacheHits: [EncodedImage.Cache: Counter]
    private let cacheMisses: Counter
    private let servedByFormat: [ImageFormat: Counter]
    private let duration: DurationHistogram
    private let stageDurations: [StageTimings.Stage: DurationHistogram]

    init(registry: PrometheusCollectorRegistry, namespace: String?, workers: Int) {
        self.registry = registry
        imgproxy = ImgproxyMetrics(registry: registry, namespace: namespace, workers: workers)
        inFlight = registry.makeGauge(descriptor: Self.name("requests_in_flight", unit: "", help: "Image requests being answered now."))
        queued = registry.makeGauge(descriptor: Self.name("queued_requests", unit: "", help: "Requests waiting for a processing slot."))
        coalesced = registry.makeCounter(descriptor: Self.name("coalesced", help: "Requests that joined identical work already running."))
        notModified = registry.makeCounter(descriptor: Self.name("not_modified", help: "Requests answered 304 from their If-None-Match."))
        requestsByStatus = Dictionary(uniqueKeysWithValues: Self.usualStatuses.map { ($0, Self.requests(status: $0, registry: registry)) })
        cacheHits = Dictionary(uniqueKeysWithValues: EncodedImage.Cache.allCases.map { tier in
            (tier, registry.makeCounter(descriptor: Self.name("cache_hits", help: "Results served from a cache, by tier."), labels: [("tier", tier.rawValue)]))
        })
        cacheMisses = registry.makeCounter(descriptor: Self.name("cache_misses", help: "Results that had to be made."))
        servedByFormat = Dictionary(uniqueKeysWithValues: ImageFormat.allCases.filter { $0 != .unknown }.map { ($0, Self.served($0, registry: registry)) })
        duration = registry.makeDurationHistogram(
            descriptor: Self.name("request_duration", unit: "seconds", help: "Time to answer an image request."), buckets: Self.buckets)
        stageDurations = Dictionary(uniqueKeysWithValues: StageTimings.Stage.allCases.map { stage in
            (stage, registry.makeDurationHistogram(
                descriptor: Self.name("stage_duration", unit: "seconds", help: "Time spent per stage: queue, download, decode, process, encode."),
                labels: [("stage", stage.rawValue)], buckets: Self.buckets))
        })
    }

    /// The statuses the proxy answers with, whose counters are made at the start.
    static let usualStatuses = [200, 304, 400, 403, 404, 410, 413, 415, 422, 429, 500, 502, 503, 504]

    private static func requests(status: Int, registry: PrometheusCollectorRegistry) -> Counter {
        registry.makeCounter(descriptor: name("requests", help: "Image requests by response status."), labels: [("status", String(status))])
    }

    func started() {
        inFlight.increment()
        imgproxy.started()
    }

    func finished(status: Int, total: Duration, timings: StageTimings) {
        inFlight.decrement()
        imgproxy.finished(status: status, total: total, timings: timings)
        (requestsByStatus[status] ?? Self.requests(status: status, registry: registry)).increment()
        duration.record(total)
        for (stage, spent) in timings.durations { stageDurations[stage]?.record(spent) }
        if status == 304 { notModified.increment() }
    }

    func cacheHit(_ tier: EncodedImage.Cache) { cacheHits[tier]?.increment() }

    func cacheMiss() { cacheMisses.increment() }

    func joined() { coalesced.increment() }

    func queueChanged(by delta: Int) { queued.increment(by: Double(delta)) }

    func served(format: ImageFormat) { (servedByFormat[format] ?? Self.served(format, registry: registry)).increment() }

    private static func served(_ format: ImageFormat, registry: PrometheusCollectorRegistry) -> Counter {
        registry.makeCounter(descriptor: name("responses_by_format", help: "Images sent, by format."), labels: [("format", format.rawValue)])
    }

    /// `magpie_proxy_<metric>_<unit>`; counters end in `_total` as Prometheus expects.
    private static func name(_ metric: String, unit: String = "total", help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "magpie", subsystem: "proxy", metricName: metric, unitName: unit, helpText: help)
    }

    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]
}
