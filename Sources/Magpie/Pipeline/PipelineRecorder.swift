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
        let tallies = fact.tallies
        counts.withLockedValue { statistics in
            for (tally, amount) in tallies { statistics.add(amount, to: tally) }
        }
        metrics.record(tallies, took: fact.duration)
    }

    /// The swift-metrics side. Labels are kept from earlier releases so dashboards keep working.
    private struct Metrics: Sendable {
        let counters: [Tally: Counter]
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
            var counters: [Tally: Counter] = [:]
            for tally in Tally.all {
                guard let (label, dimensions) = tally.metric else { continue }
                counters[tally] = counter(label, dimensions)
            }
            self.counters = counters
            decodeTime = timer("magpie_decode_duration")
            processTime = timer("magpie_process_duration")
        }

        func record(_ tallies: [(Tally, Int)], took duration: (StageName, Duration)?) {
            for (tally, amount) in tallies { counters[tally]?.increment(by: amount) }
            switch duration {
            case (.decode, let took)?: decodeTime.recordNanoseconds(Self.nanoseconds(took))
            case (.process, let took)?: processTime.recordNanoseconds(Self.nanoseconds(took))
            default: break
            }
        }

        private static func nanoseconds(_ duration: Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }
    }
}

/// One count a pipeline keeps, in ``PipelineStatistics`` and as a swift-metrics counter.
enum Tally: Hashable, Sendable {
    case requests, memoryHits, diskHits, networkLoads, failures, cancelled, coalesced, downloads, bytesDownloaded, revalidated
    case resumed, decodes, onePassEncodes, encodesWhileDecoding, processorRuns, variantsStored, memoryTrims, trimmedBytes
    case sharedStore(SharedStoreOutcome)

    static let all: [Tally] = [
        .requests, .memoryHits, .diskHits, .networkLoads, .failures, .cancelled, .coalesced, .downloads, .bytesDownloaded, .revalidated,
        .resumed, .decodes, .onePassEncodes, .encodesWhileDecoding, .processorRuns, .variantsStored, .memoryTrims, .trimmedBytes,
    ] + SharedStoreOutcome.allCases.map { .sharedStore($0) }

    /// The counter's label and dimensions; `nil` for a count kept in the statistics alone
    /// (decodes, which the decode timer counts).
    var metric: (String, [(String, String)])? {
        switch self {
        case .requests: ("magpie_requests_total", [])
        case .memoryHits: ("magpie_loads_total", [("source", "memory")])
        case .diskHits: ("magpie_loads_total", [("source", "disk")])
        case .networkLoads: ("magpie_loads_total", [("source", "network")])
        case .failures: ("magpie_failures_total", [])
        case .cancelled: ("magpie_cancelled_total", [])
        case .coalesced: ("magpie_coalesced_total", [])
        case .downloads: ("magpie_downloads_total", [])
        case .bytesDownloaded: ("magpie_downloaded_bytes_total", [])
        case .revalidated: ("magpie_revalidated_total", [])
        case .resumed: ("magpie_resumed_downloads_total", [])
        case .decodes: nil
        case .onePassEncodes: ("magpie_one_pass_encodes_total", [])
        case .encodesWhileDecoding: ("magpie_encodes_while_decoding_total", [])
        case .processorRuns: ("magpie_processor_runs_total", [])
        case .variantsStored: ("magpie_variants_stored_total", [])
        case .memoryTrims: ("magpie_memory_trims_total", [])
        case .trimmedBytes: ("magpie_memory_trimmed_bytes_total", [])
        case .sharedStore(let outcome): ("magpie_shared_store_total", [("outcome", outcome.rawValue)])
        }
    }
}

extension PipelineRecorder.Fact {
    /// What the fact adds to which counts: the one place its meaning for both sides is written.
    var tallies: [(Tally, Int)] {
        switch self {
        case .finished(.memory): [(.requests, 1), (.memoryHits, 1)]
        case .finished(.disk): [(.requests, 1), (.diskHits, 1)]
        case .finished(.network): [(.requests, 1), (.networkLoads, 1)]
        case .failed: [(.requests, 1), (.failures, 1)]
        case .cancelled: [(.requests, 1), (.cancelled, 1)]
        case .joinedWork: [(.coalesced, 1)]
        case .downloadStarted: [(.downloads, 1)]
        case .downloaded(let bytes): [(.bytesDownloaded, bytes)]
        case .revalidated: [(.revalidated, 1)]
        case .resumed: [(.resumed, 1)]
        case .decoded: [(.decodes, 1)]
        case .encodedInOnePass: [(.decodes, 1), (.onePassEncodes, 1)]
        case .encodedWhileDecoding: [(.decodes, 1), (.encodesWhileDecoding, 1)]
        case .processed: [(.processorRuns, 1)]
        case .variantStored: [(.variantsStored, 1)]
        case .memoryTrimmed(let freed): [(.memoryTrims, 1), (.trimmedBytes, freed)]
        case .sharedStore(let outcome): [(.sharedStore(outcome), 1)]
        }
    }

    /// The time a decode or a processor run took, for the metrics' timers. (A one-pass encode's
    /// decode is not told apart from its encode, so it is not timed as a decode.)
    var duration: (StageName, Duration)? {
        switch self {
        case .decoded(let took): (.decode, took)
        case .processed(let took): (.process, took)
        default: nil
        }
    }
}

extension PipelineStatistics {
    /// Adds `amount` to the statistic `tally` keeps (none for the bytes a trim freed).
    fileprivate mutating func add(_ amount: Int, to tally: Tally) {
        switch tally {
        case .requests: requests += amount
        case .memoryHits: memoryHits += amount
        case .diskHits: diskHits += amount
        case .networkLoads: networkLoads += amount
        case .failures: failed += amount
        case .cancelled: cancelled += amount
        case .coalesced: coalesced += amount
        case .downloads: downloads += amount
        case .bytesDownloaded: bytesDownloaded += amount
        case .revalidated: revalidated += amount
        case .resumed: resumedDownloads += amount
        case .decodes: decodes += amount
        case .onePassEncodes: onePassEncodes += amount
        case .encodesWhileDecoding: encodesWhileDecoding += amount
        case .processorRuns: processorRuns += amount
        case .variantsStored: variantsStored += amount
        case .memoryTrims: memoryTrims += amount
        case .trimmedBytes: break
        case .sharedStore(let outcome): sharedStore[outcome, default: 0] += amount
        }
    }
}
