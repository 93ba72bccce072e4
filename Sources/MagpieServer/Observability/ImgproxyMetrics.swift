import Magpie
import Prometheus

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

    private let registry: PrometheusCollectorRegistry
    private let namespace: String?
    private let requests: Counter
    private let statusCodes: [Int: Counter]
    private let errors: [ErrorType: Counter]
    private let duration: DurationHistogram
    /// imgproxy's spans: waiting for a worker, downloading, and processing (decoding,
    /// transforming and saving, one span in imgproxy).
    private let queueSpan: DurationHistogram
    private let downloadingSpan: DurationHistogram
    private let processingSpan: DurationHistogram
    private let requestsInProgress: Gauge
    private let imagesInProgress: Gauge
    private let utilization: Gauge
    private let vipsMemory: Gauge
    private let vipsMaxMemory: Gauge
    private let vipsAllocations: Gauge
    private let workers: Double

    init(registry: PrometheusCollectorRegistry, namespace: String?, workers: Int) {
        self.registry = registry
        self.namespace = namespace
        let name = { (metric: String, unit: String, help: String) in
            MetricNameDescriptor(namespace: namespace, metricName: metric, unitName: unit, helpText: help)
        }
        self.workers = Double(max(1, workers))
        requests = registry.makeCounter(descriptor: name("requests", "total", "Image requests received (imgproxy's name)."))
        statusCodes = Dictionary(uniqueKeysWithValues: ProxyMetrics.usualStatuses.map { status in
            (status, Self.statusCounter(status, registry: registry, namespace: namespace))
        })
        errors = Dictionary(uniqueKeysWithValues: ErrorType.allCases.map { type in
            (type, registry.makeCounter(descriptor: name("errors", "total", "Failed image requests by imgproxy's error type."), labels: [("type", type.rawValue)]))
        })
        duration = registry.makeDurationHistogram(
            descriptor: name("request_duration", "seconds", "Time to answer an image request (imgproxy's name)."), buckets: Self.buckets)
        func span(_ span: String) -> DurationHistogram {
            registry.makeDurationHistogram(
                descriptor: name("request_span_duration", "seconds", "Time per part of a request: queue, downloading, processing (imgproxy's spans)."),
                labels: [("span", span)], buckets: Self.buckets)
        }
        (queueSpan, downloadingSpan, processingSpan) = (span("queue"), span("downloading"), span("processing"))
        requestsInProgress = registry.makeGauge(descriptor: name("requests_in_progress", "", "Image requests being answered now (imgproxy's name)."))
        imagesInProgress = registry.makeGauge(descriptor: name("images_in_progress", "", "Images being made now: admitted and not yet answered (a request joining one being made adds none)."))
        utilization = registry.makeGauge(descriptor: name("workers_utilization", "", "Requests in progress per processing slot, in percent."))
        registry.makeGauge(descriptor: name("workers", "", "Processing slots (imgproxy's workers).")).set(to: self.workers)
        vipsMemory = registry.makeGauge(descriptor: name("vips_memory", "bytes", "Pixel memory libvips holds now."))
        vipsMaxMemory = registry.makeGauge(descriptor: name("vips_max_memory", "bytes", "The most pixel memory libvips has held at once."))
        vipsAllocations = registry.makeGauge(descriptor: name("vips_allocs", "", "Pixel buffers libvips holds now."))
    }

    func started() {
        requests.increment()
        requestsInProgress.increment()
        // The gauge and the ratio move together; a scrape between the two sees them a request apart.
        utilization.increment(by: 100 / workers)
    }

    func finished(status: Int, total: Duration, timings: StageTimings) {
        requestsInProgress.decrement()
        utilization.decrement(by: 100 / workers)
        (statusCodes[status] ?? Self.statusCounter(status, registry: registry, namespace: namespace)).increment()
        duration.record(total)
        let durations = timings.durations
        if let queue = durations[.queue] { queueSpan.record(queue) }
        if let download = durations[.download] { downloadingSpan.record(download) }
        let processing = [StageTimings.Stage.decode, .process, .encode].compactMap { durations[$0] }
        if !processing.isEmpty { processingSpan.record(processing.reduce(.zero, +)) }
    }

    func failed(_ type: ErrorType) { errors[type]?.increment() }

    func imageStarted() { imagesInProgress.increment() }

    func imageFinished() { imagesInProgress.decrement() }

    /// Reads libvips' own accounting, just before `/metrics` is written.
    func refreshLibvips() {
        let memory = Libvips.memory
        vipsMemory.set(to: Double(memory.bytes))
        vipsMaxMemory.set(to: Double(memory.highestBytes))
        vipsAllocations.set(to: Double(memory.allocations))
    }

    private static func statusCounter(_ status: Int, registry: PrometheusCollectorRegistry, namespace: String?) -> Counter {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(namespace: namespace, metricName: "status_codes", unitName: "total", helpText: "Answers by HTTP status (imgproxy's name)."),
            labels: [("status", String(status))])
    }

    /// Go's Prometheus client's default buckets, which imgproxy's histograms use.
    private static let buckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]
}
