import Magpie
import Metrics
import struct Prometheus.PrometheusMetricsFactory

/// imgproxy's Prometheus metrics, by its names, labels and meanings, so that a dashboard made
/// for imgproxy reads Magpie unchanged: `requests_total`, `status_codes_total{status}`,
/// `errors_total{type}`, `request_duration_seconds`, `request_span_duration_seconds{span}`,
/// `requests_in_progress`, `images_in_progress`, `workers`, `workers_utilization` and libvips'
/// `vips_memory_bytes`, `vips_max_memory_bytes`, `vips_allocs`; prefixed by
/// ``ProxyConfiguration/prometheusNamespace`` as imgproxy's `IMGPROXY_PROMETHEUS_NAMESPACE`
/// prefixes them. Not kept: imgproxy's download-buffer histograms, which describe its Go buffer
/// pool.
struct ImgproxyMetrics: Sendable {
    /// imgproxy's error types.
    enum ErrorType: String, CaseIterable {
        case timeout, downloading, processing, queue
    }

    private let factory: PrometheusMetricsFactory
    private let namespace: String?
    private let requests: Counter
    private let statusCodes: [Int: Counter]
    private let errors: [ErrorType: Counter]
    private let duration: Metrics.Timer
    /// imgproxy's spans: waiting for a worker, downloading, and processing (decoding,
    /// transforming and saving, one span in imgproxy).
    private let queueSpan: Metrics.Timer
    private let downloadingSpan: Metrics.Timer
    private let processingSpan: Metrics.Timer
    private let requestsInProgress: Meter
    private let imagesInProgress: Meter
    private let utilization: Meter
    private let vipsMemory: Meter
    private let vipsMaxMemory: Meter
    private let vipsAllocations: Meter
    private let workers: Double

    /// Made by `factory`, which is given imgproxy's histogram buckets.
    init(factory: inout PrometheusMetricsFactory, namespace: String?, workers: Int) {
        let durationLabel = Self.name("request_duration_seconds", namespace), spanLabel = Self.name("request_span_duration_seconds", namespace)
        factory.durationHistogramBuckets[durationLabel] = Self.buckets
        factory.durationHistogramBuckets[spanLabel] = Self.buckets
        self.factory = factory
        self.namespace = namespace
        let factory = factory
        func meter(_ metric: String) -> Meter { Meter(label: Self.name(metric, namespace), factory: factory) }
        self.workers = Double(max(1, workers))
        requests = Counter(label: Self.name("requests_total", namespace), factory: factory)
        statusCodes = Dictionary(uniqueKeysWithValues: ProxyMetrics.usualStatuses.map { status in
            (status, Self.statusCounter(status, factory: factory, namespace: namespace))
        })
        errors = Dictionary(uniqueKeysWithValues: ErrorType.allCases.map { type in
            (type, Counter(label: Self.name("errors_total", namespace), dimensions: [("type", type.rawValue)], factory: factory))
        })
        duration = Metrics.Timer(label: durationLabel, factory: factory)
        func span(_ span: String) -> Metrics.Timer { Metrics.Timer(label: spanLabel, dimensions: [("span", span)], factory: factory) }
        (queueSpan, downloadingSpan, processingSpan) = (span("queue"), span("downloading"), span("processing"))
        requestsInProgress = meter("requests_in_progress")
        // Images being made now: admitted and not yet answered (a request joining one being
        // made adds none).
        imagesInProgress = meter("images_in_progress")
        // Requests in progress per processing slot, in percent.
        utilization = meter("workers_utilization")
        meter("workers").set(self.workers)
        vipsMemory = meter("vips_memory_bytes")
        vipsMaxMemory = meter("vips_max_memory_bytes")
        vipsAllocations = meter("vips_allocs")
    }

    /// imgproxy's `IMGPROXY_PROMETHEUS_NAMESPACE` prefix, with its underscore.
    private static func name(_ metric: String, _ namespace: String?) -> String {
        guard let namespace, !namespace.isEmpty else { return metric }
        return namespace + "_" + metric
    }

    func started() {
        requests.increment()
    }

    func finished(status: Int, total: Duration, timings: StageTimings) {
        (statusCodes[status] ?? Self.statusCounter(status, factory: factory, namespace: namespace)).increment()
        duration.recordSeconds(total / .seconds(1))
        let durations = timings.durations
        if let queue = durations[.queue] { queueSpan.recordSeconds(queue / .seconds(1)) }
        if let download = durations[.download] { downloadingSpan.recordSeconds(download / .seconds(1)) }
        let processing = [StageTimings.Stage.decode, .process, .encode].compactMap { durations[$0] }
        if !processing.isEmpty { processingSpan.recordSeconds(processing.reduce(.zero, +) / .seconds(1)) }
    }

    func failed(_ type: ErrorType) { errors[type]?.increment() }

    func imageStarted() { imagesInProgress.increment() }

    func imageFinished() { imagesInProgress.decrement() }

    /// Sets the gauges of requests in progress (`answering` of them) and of libvips' own
    /// accounting, just before `/metrics` is written.
    func refresh(answering: Int) {
        requestsInProgress.set(answering)
        utilization.set(Double(answering) * 100 / workers)
        let memory = Libvips.memory
        vipsMemory.set(Double(memory.bytes))
        vipsMaxMemory.set(Double(memory.highestBytes))
        vipsAllocations.set(Double(memory.allocations))
    }

    private static func statusCounter(_ status: Int, factory: PrometheusMetricsFactory, namespace: String?) -> Counter {
        Counter(label: name("status_codes_total", namespace), dimensions: [("status", String(status))], factory: factory)
    }

    /// Go's Prometheus client's default buckets, which imgproxy's histograms use.
    private static let buckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]
}
