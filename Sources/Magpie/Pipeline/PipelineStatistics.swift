/// What one read or write of the shared store came to.
public enum SharedStoreOutcome: String, Sendable, Hashable, CaseIterable {
    /// A read found the object, whole.
    case hit
    /// A read found nothing.
    case miss
    /// A read found an object past its expiry, removed it and missed.
    case expired
    /// A read found an object whose checksum, key or metadata did not match: removed, missed.
    case damaged
    /// A read or write failed (unreachable, too slow, refused); the load went on without the
    /// store, which is left alone for a while (``SharedStore/pauseAfterFailure``).
    case failed
    /// Not tried: the store failed moments ago.
    case skipped
    /// A write stored the object.
    case written
    /// A write once found the key already there (another process made it first).
    case alreadyThere
    /// A write was not started: too many writes were waiting, or its metadata was too large.
    case dropped
}

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
    /// Of ``decodes``, those written straight to their encoding in one libvips pipeline, with
    /// no decoded bitmap between (a server's thumbnails and crops; see ``ImagePipeline/Configuration/memoryCache``).
    public var onePassEncodes = 0
    /// Of ``decodes``, animations encoded frame by frame while their later frames were still
    /// decoding, where the pipeline keeps no decoded images (a server's WebP and GIF answers).
    public var encodesWhileDecoding = 0
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
    /// What the shared store (``ImagePipeline/Configuration/sharedStore``) did, by outcome:
    /// reads that hit or missed, writes, and the failures a load went on without.
    public var sharedStore: [SharedStoreOutcome: Int] = [:]

    /// All zeros.
    public init() {}
}

