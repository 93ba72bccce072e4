/// Counts of what a pipeline has done since it was created.
public struct PipelineStatistics: Sendable, Equatable {
    /// Loads that ended, by any API (succeeded, failed or cancelled).
    public var requests = 0
    /// Loads served from the memory cache.
    public var memoryHits = 0
    /// Loads served from the disk cache (original bytes or an encoded variant).
    public var diskHits = 0
    /// Loads served from the network (a 304 that kept the cached bytes included).
    public var networkLoads = 0
    /// HTTP requests started (revalidations included; redirects not counted again).
    public var downloads = 0
    /// 304 answers that kept cached bytes.
    public var revalidated = 0
    /// Downloads that asked only for the rest of a body that broke off earlier
    /// (``ImagePipeline/Configuration/resumableDownloads``).
    public var resumedDownloads = 0
    /// Bytes of response bodies received (a resumed download counts only what it received).
    public var bytesDownloaded = 0
    /// Decodes run.
    public var decodes = 0
    /// Processor runs (one per processor per shared piece of work, previews not counted).
    public var processorRuns = 0
    /// Processed variants written to the disk cache.
    public var variantsStored = 0
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

