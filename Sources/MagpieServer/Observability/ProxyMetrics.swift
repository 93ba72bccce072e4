import Magpie
import Metrics
import Synchronization
import class Prometheus.PrometheusCollectorRegistry
import struct Prometheus.PrometheusMetricsFactory

/// The proxy's metrics (`magpie_proxy_*`, and imgproxy's names beside them), made through
/// swift-metrics as the pipeline's are, by ``factory``: swift-prometheus over the proxy's
/// registry, served at `/metrics` with the pipeline's `magpie_*` metrics.
final class ProxyMetrics: Sendable {
    /// Every metric of the proxy and (unless its configuration names another) of its pipeline.
    let factory: PrometheusMetricsFactory
    let imgproxy: ImgproxyMetrics
    /// Requests being answered: counted here, and told to its gauges (ours and imgproxy's two)
    /// when `/metrics` is read, not on every request.
    private let answering = Atomic<Int>(0)
    private let inFlight: Meter
    private let queued: Meter
    private let coalesced: Counter
    private let notModified: Counter
    /// Made once, every labelled metric here: looking one up in the registry takes a lock,
    /// checks its name and builds its labels (a sixth of a memory hit's time).
    private let requestsByStatus: [Int: Counter]
    private let cacheHits: [EncodedImage.Cache: Counter]
    private let cacheMisses: Counter
    private let servedByFormat: [ImageFormat: Counter]
    private let duration: Metrics.Timer
    private let stageDurations: [StageTimings.Stage: Metrics.Timer]

    init(registry: PrometheusCollectorRegistry, namespace: String?, workers: Int) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [Self.durationLabel: Self.buckets, Self.stageDurationLabel: Self.buckets]
        imgproxy = ImgproxyMetrics(factory: &factory, namespace: namespace, workers: workers)
        self.factory = factory
        inFlight = Meter(label: "magpie_proxy_requests_in_flight", factory: factory)
        queued = Meter(label: "magpie_proxy_queued_requests", factory: factory)
        coalesced = Counter(label: "magpie_proxy_coalesced_total", factory: factory)
        notModified = Counter(label: "magpie_proxy_not_modified_total", factory: factory)
        requestsByStatus = Dictionary(uniqueKeysWithValues: Self.usualStatuses.map { ($0, Self.requests(status: $0, factory: factory)) })
        cacheHits = Dictionary(uniqueKeysWithValues: EncodedImage.Cache.allCases.map { tier in
            (tier, Counter(label: "magpie_proxy_cache_hits_total", dimensions: [("tier", tier.rawValue)], factory: factory))
        })
        cacheMisses = Counter(label: "magpie_proxy_cache_misses_total", factory: factory)
        servedByFormat = Dictionary(uniqueKeysWithValues: ImageFormat.allCases.filter { $0 != .unknown }.map { ($0, Self.served($0, factory: factory)) })
        duration = Metrics.Timer(label: Self.durationLabel, factory: factory)
        stageDurations = Dictionary(uniqueKeysWithValues: StageTimings.Stage.allCases.map { stage in
            (stage, Metrics.Timer(label: Self.stageDurationLabel, dimensions: [("stage", stage.rawValue)], factory: factory))
        })
    }

    /// The statuses the proxy answers with, whose counters are made at the start.
    static let usualStatuses = [200, 304, 400, 403, 404, 410, 413, 415, 422, 429, 500, 502, 503, 504]

    private static let durationLabel = "magpie_proxy_request_duration_seconds"
    private static let stageDurationLabel = "magpie_proxy_stage_duration_seconds"

    private static func requests(status: Int, factory: PrometheusMetricsFactory) -> Counter {
        Counter(label: "magpie_proxy_requests_total", dimensions: [("status", String(status))], factory: factory)
    }

    func started() {
        answering.add(1, ordering: .relaxed)
        imgproxy.started()
    }

    /// Sets the gauges read from counts kept here and from libvips, just before `/metrics` is
    /// written.
    func refresh() {
        let answering = answering.load(ordering: .relaxed)
        inFlight.set(answering)
        imgproxy.refresh(answering: answering)
    }

    func finished(status: Int, total: Duration, timings: StageTimings) {
        answering.subtract(1, ordering: .relaxed)
        imgproxy.finished(status: status, total: total, timings: timings)
        (requestsByStatus[status] ?? Self.requests(status: status, factory: factory)).increment()
        duration.recordSeconds(total / .seconds(1))
        for (stage, spent) in timings.durations { stageDurations[stage]?.recordSeconds(spent / .seconds(1)) }
        if status == 304 { notModified.increment() }
    }

    func cacheHit(_ tier: EncodedImage.Cache) { cacheHits[tier]?.increment() }

    func cacheMiss() { cacheMisses.increment() }

    func joined() { coalesced.increment() }

    func queueChanged(by delta: Int) { queued.increment(by: Double(delta)) }

    func served(format: ImageFormat) { (servedByFormat[format] ?? Self.served(format, factory: factory)).increment() }

    private static func served(_ format: ImageFormat, factory: PrometheusMetricsFactory) -> Counter {
        Counter(label: "magpie_proxy_responses_by_format_total", dimensions: [("format", format.rawValue)], factory: factory)
    }

    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]
}
