import Metrics

/// Counters and timers reported through swift-metrics, named `magpie_*`.
struct PipelineMetrics: Sendable {
    let requests: Counter
    let memoryHits: Counter
    let diskHits: Counter
    let networkLoads: Counter
    let downloads: Counter
    let bytes: Counter
    let coalesced: Counter
    let cancelled: Counter
    let failures: Counter
    let memoryTrims: Counter
    let trimmedBytes: Counter
    let decodeTime: Timer

    init(factory: (any MetricsFactory)?) {
        func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Counter {
            if let factory { return Counter(label: label, dimensions: dimensions, factory: factory) }
            return Counter(label: label, dimensions: dimensions)
        }
        requests = counter("magpie_requests_total")
        memoryHits = counter("magpie_loads_total", [("source", "memory")])
        diskHits = counter("magpie_loads_total", [("source", "disk")])
        networkLoads = counter("magpie_loads_total", [("source", "network")])
        downloads = counter("magpie_downloads_total")
        bytes = counter("magpie_downloaded_bytes_total")
        coalesced = counter("magpie_coalesced_total")
        cancelled = counter("magpie_cancelled_total")
        failures = counter("magpie_failures_total")
        memoryTrims = counter("magpie_memory_trims_total")
        trimmedBytes = counter("magpie_memory_trimmed_bytes_total")
        if let factory {
            decodeTime = Timer(label: "magpie_decode_duration", dimensions: [], factory: factory)
        } else {
            decodeTime = Timer(label: "magpie_decode_duration")
        }
    }

    func recordCoalesced() {
        coalesced.increment()
    }

    func recordTrim(freedBytes: Int) {
        memoryTrims.increment()
        trimmedBytes.increment(by: freedBytes)
    }

    func recordDecode(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        decodeTime.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Counts what an event says happened.
    func record(_ event: PipelineEvent) {
        switch event {
        case .started: downloads.increment()
        case .response, .progress: break
        case .finished(_, _, let byteCount, _, let source):
            requests.increment()
            switch source {
            case .memory: memoryHits.increment()
            case .disk: diskHits.increment()
            case .network:
                networkLoads.increment()
                bytes.increment(by: byteCount)
            }
        case .cancelled:
            requests.increment()
            cancelled.increment()
        case .failed:
            requests.increment()
            failures.increment()
        }
    }
}
