import NIOConcurrencyHelpers

/// Counts of what a pipeline has done since it was created.
public struct PipelineStatistics: Sendable, Equatable {
    /// Loads asked for, by any API.
    public var requests = 0
    /// Served from the memory cache.
    public var memoryHits = 0
    /// Original bytes read from the disk cache.
    public var diskHits = 0
    /// HTTP requests started (revalidations included; redirects not counted again).
    public var downloads = 0
    /// 304 answers that kept cached bytes.
    public var revalidated = 0
    /// Bytes of response bodies received.
    public var bytesDownloaded = 0
    /// Decodes run.
    public var decodes = 0
    /// Loads that joined work already in flight instead of starting their own.
    public var coalesced = 0
    /// Loads that ended cancelled.
    public var cancelled = 0
    /// Loads that failed (cancellation not included).
    public var failed = 0
    /// Times the memory cache was emptied for memory pressure or by ``ImagePipeline/trimMemory(reason:)``.
    public var memoryTrims = 0

    /// All zeros.
    public init() {}
}

final class StatisticsRecorder: Sendable {
    private let counts = NIOLockedValueBox(PipelineStatistics())

    func record(_ update: (inout PipelineStatistics) -> Void) {
        counts.withLockedValue { update(&$0) }
    }

    var snapshot: PipelineStatistics { counts.withLockedValue { $0 } }
}
