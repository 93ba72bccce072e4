import Metrics
import NIOConcurrencyHelpers

/// Counts what a pipeline does, in ``PipelineStatistics`` and in swift-metrics (`magpie_*`) at
/// once: every count goes through ``record(_:)``, so the two cannot disagree.
final class PipelineRecorder: Sendable {
    /// Something worth counting.
    enum Fact {
        /// A load ended; `requests` counts each ending once.
        case finished(ImageSource)
        case failed
        case cancelled
        case joinedWork
        case downloadStarted
        case downloaded(bytes: Int)
        case revalidated
        /// A download asked for the rest of a body that broke off earlier.
        case resumed
        case decoded(Duration)
        /// Decoded, processed and encoded in one libvips pipeline, taking this long.
        case encodedInOnePass(Duration)
        /// An animation decoded and encoded frame by frame at once, taking this long.
        case encodedWhileDecoding(Duration)
        /// A bitmap decoded, `processorRuns` processors run on it and encoded, in one decoding
        /// job with no stage between, taking this long.
        case decodedProcessedAndEncoded(Duration, processorRuns: Int)
        case processed(Duration)
        case variantStored
        case memoryTrimmed(freedBytes: Int)
        case sharedStore(SharedStoreOutcome)
    }

    private let counts = NIOLockedValueBox(PipelineStatistics())
    private let metrics: Metrics

    init(metricsFactory: (any MetricsFactory)?) {
        metrics = Metrics(factory: metricsFactory)
    }

    var snapshot: PipelineStatistics { counts.withLockedValue { $0 } }

    /// Adds `fact` to the statistics and to swift-metrics, in one switch: what each fact counts
    /// is said once. The metrics are told under the statistics' lock, so a snapshot and a
    /// scrape taken after the same facts agree.
    func record(_ fact: Fact) {
        let metrics = metrics
        func add(_ count: inout Int, _ counter: Counter, _ amount: Int = 1) {
            count += amount
            counter.increment(by: amount)
        }
        counts.withLockedValue { statistics in
            switch fact {
            case .finished(let source):
                add(&statistics.requests, metrics.requests)
                switch source {
                case .memory: add(&statistics.memoryHits, metrics.memoryHits)
                case .disk: add(&statistics.diskHits, metrics.diskHits)
                case .network: add(&statistics.networkLoads, metrics.networkLoads)
                }
            case .failed:
                add(&statistics.requests, metrics.requests)
                add(&statistics.failed, metrics.failures)
            case .cancelled:
                add(&statistics.requests, metrics.requests)
                add(&statistics.cancelled, metrics.cancelled)
            case .joinedWork: add(&statistics.coalesced, metrics.coalesced)
            case .downloadStarted: add(&statistics.downloads, metrics.downloads)
            case .downloaded(let bytes): add(&statistics.bytesDownloaded, metrics.bytes, bytes)
            case .revalidated: add(&statistics.revalidated, metrics.revalidated)
            case .resumed: add(&statistics.resumedDownloads, metrics.resumed)
            case .decoded(let duration):
                statistics.decodes += 1
                metrics.decodeTime.recordSeconds(duration / .seconds(1))
            // The decode's own time is not told apart from the encode's in the metrics.
            case .encodedInOnePass:
                statistics.decodes += 1
                add(&statistics.onePassEncodes, metrics.onePassEncodes)
            case .encodedWhileDecoding:
                statistics.decodes += 1
                add(&statistics.encodesWhileDecoding, metrics.encodesWhileDecoding)
            case .decodedProcessedAndEncoded(_, let runs):
                statistics.decodes += 1
                add(&statistics.processorRuns, metrics.processorRuns, runs)
            case .processed(let duration):
                add(&statistics.processorRuns, metrics.processorRuns)
                metrics.processTime.recordSeconds(duration / .seconds(1))
            case .variantStored: add(&statistics.variantsStored, metrics.variantsStored)
            case .memoryTrimmed(let freed):
                add(&statistics.memoryTrims, metrics.memoryTrims)
                metrics.trimmedBytes.increment(by: freed)
            case .sharedStore(let outcome):
                statistics.sharedStore[outcome, default: 0] += 1
                metrics.sharedStore[outcome]?.increment()
            }
        }
    }

    /// The swift-metrics side. Labels are kept from earlier releases so dashboards keep working.
    private struct Metrics: Sendable {
        let requests: Counter
        let memoryHits: Counter
        let diskHits: Counter
        let networkLoads: Counter
        let downloads: Counter
        let bytes: Counter
        let revalidated: Counter
        let resumed: Counter
        let coalesced: Counter
        let cancelled: Counter
        let failures: Counter
        let processorRuns: Counter
        let onePassEncodes: Counter
        let encodesWhileDecoding: Counter
        let variantsStored: Counter
        let memoryTrims: Counter
        let trimmedBytes: Counter
        let sharedStore: [SharedStoreOutcome: Counter]
        let decodeTime: Timer
        let processTime: Timer

        init(factory: (any MetricsFactory)?) {
            func counter(_ label: String, _ dimensions: [(String, String)] = []) -> Counter {
                if let factory { return Counter(label: label, dimensions: dimensions, factory: factory) }
                return Counter(label: label, dimensions: dimensions)
            }
            func timer(_ label: String) -> Timer {
                if let factory { return Timer(label: label, dimensions: [], factory: factory) }
                return Timer(label: label)
            }
            requests = counter("magpie_requests_total")
            memoryHits = counter("magpie_loads_total", [("source", "memory")])
            diskHits = counter("magpie_loads_total", [("source", "disk")])
            networkLoads = counter("magpie_loads_total", [("source", "network")])
            downloads = counter("magpie_downloads_total")
            bytes = counter("magpie_downloaded_bytes_total")
            revalidated = counter("magpie_revalidated_total")
            resumed = counter("magpie_resumed_downloads_total")
            coalesced = counter("magpie_coalesced_total")
            cancelled = counter("magpie_cancelled_total")
            failures = counter("magpie_failures_total")
            processorRuns = counter("magpie_processor_runs_total")
            onePassEncodes = counter("magpie_one_pass_encodes_total")
            encodesWhileDecoding = counter("magpie_encodes_while_decoding_total")
            variantsStored = counter("magpie_variants_stored_total")
            memoryTrims = counter("magpie_memory_trims_total")
            trimmedBytes = counter("magpie_memory_trimmed_bytes_total")
            sharedStore = Dictionary(
                uniqueKeysWithValues: SharedStoreOutcome.allCases.map { ($0, counter("magpie_shared_store_total", [("outcome", $0.rawValue)])) })
            decodeTime = timer("magpie_decode_duration")
            processTime = timer("magpie_process_duration")
        }
    }
}
