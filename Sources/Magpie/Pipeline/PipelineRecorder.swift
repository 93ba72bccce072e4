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

    func record(_ fact: Fact) {
        counts.withLockedValue { statistics in
            switch fact {
            case .finished(let source):
                statistics.requests += 1
                switch source {
                case .memory: statistics.memoryHits += 1
                case .disk: statistics.diskHits += 1
                case .network: statistics.networkLoads += 1
                }
            case .failed:
                statistics.requests += 1
                statistics.failed += 1
            case .cancelled:
                statistics.requests += 1
                statistics.cancelled += 1
            case .joinedWork: statistics.coalesced += 1
            case .downloadStarted: statistics.downloads += 1
            case .downloaded(let bytes): statistics.bytesDownloaded += bytes
            case .revalidated: statistics.revalidated += 1
            case .resumed: statistics.resumedDownloads += 1
            case .decoded: statistics.decodes += 1
            case .encodedInOnePass:
                statistics.decodes += 1
                statistics.onePassEncodes += 1
            case .encodedWhileDecoding:
                statistics.decodes += 1
                statistics.encodesWhileDecoding += 1
            case .processed: statistics.processorRuns += 1
            case .variantStored: statistics.variantsStored += 1
            case .memoryTrimmed: statistics.memoryTrims += 1
            case .sharedStore(let outcome): statistics.sharedStore[outcome, default: 0] += 1
            }
        }
        metrics.record(fact)
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

        func record(_ fact: Fact) {
            switch fact {
            case .finished(let source):
                requests.increment()
                switch source {
                case .memory: memoryHits.increment()
                case .disk: diskHits.increment()
                case .network: networkLoads.increment()
                }
            case .failed:
                requests.increment()
                failures.increment()
            case .cancelled:
                requests.increment()
                cancelled.increment()
            case .joinedWork: coalesced.increment()
            case .downloadStarted: downloads.increment()
            case .downloaded(let count): bytes.increment(by: count)
            case .revalidated: revalidated.increment()
            case .resumed: resumed.increment()
            case .decoded(let duration): decodeTime.record(duration)
            // The decode's own time is not told apart from the encode's here.
            case .encodedInOnePass: onePassEncodes.increment()
            case .encodedWhileDecoding: encodesWhileDecoding.increment()
            case .processed(let duration):
                processorRuns.increment()
                processTime.record(duration)
            case .variantStored: variantsStored.increment()
            case .memoryTrimmed(let freed):
                memoryTrims.increment()
                trimmedBytes.increment(by: freed)
            case .sharedStore(let outcome): sharedStore[outcome]?.increment()
            }
        }
    }
}
