public import Foundation
public import Logging
public import Metrics

extension ImagePipeline {
    /// Everything a pipeline can be told. The defaults follow SDWebImage and Nuke; the
    /// <doc:Defaults> article says where each comes from.
    public struct Configuration: Sendable {
        /// Downloads running at once; more wait in the queue.
        public var maximumConcurrentDownloads = 6
        /// Which of two queued downloads of equal priority starts first.
        public var downloadOrder = DownloadOrder.fifo
        /// Memory cache limits; `nil` turns the memory cache off.
        public var memoryCache: ImageCache.Limits? = .default
        /// The memory cache itself, used instead of the ``ImageCache`` made from ``memoryCache``:
        /// your own ``ImageCaching``, or one cache shared by several pipelines.
        public var imageCache: (any ImageCaching)?
        /// Limits glibc's malloc to two arenas for the whole process (once, when the first
        /// pipeline is created, unless `MALLOC_ARENA_MAX` is set), so freed bodies and bitmaps
        /// are reused instead of piling up in per-thread arenas: without it, resident memory
        /// creeps up by hundreds of megabytes over a few thousand large loads. Turn it off when
        /// the process tunes its allocator itself (jemalloc, its own `mallopt`).
        public var limitsMallocArenas = true
        /// Tells the pipeline when memory is short, so it empties the memory cache (see
        /// ``ImagePipeline/trimMemory(reason:)``); `nil` turns this off. By default the
        /// process's cgroup limit and the kernel's pressure-stall information.
        public var memoryPressure: (any MemoryPressureSource)? = SystemMemoryPressure()
        /// Disk cache location and limits; `nil` turns the disk cache off.
        public var diskCache: DataCache.Configuration? = .init()
        /// The local store of originals and variants itself, used instead of the ``DataCache``
        /// made from ``diskCache``: your own ``DataCaching``.
        public var dataCache: (any DataCaching)?
        /// A bucket behind the disk cache that several processes share (replicas of a server,
        /// a fleet of crawlers): a variant one of them renders, or with
        /// ``SharedStore/keeps`` an original one downloads, the others read instead of making
        /// it again. `nil` (the default): nothing is shared.
        public var sharedStore: SharedStore?
        /// What the disk cache keeps: original bytes (the default), encoded processed variants,
        /// or both. A request can ask for another policy (``ImageRequest/diskCachePolicy``).
        /// Encoded output (``ImagePipeline/encodedImage(for:encoding:)``) is kept on disk by the
        /// policies that keep variants.
        public var diskCachePolicy = DiskCachePolicy.originals
        /// Bytes of encoded output (``ImagePipeline/encodedImage(for:encoding:)``) kept in
        /// memory, least recently used first out; `nil` or 0 keeps none. 32 MB by default.
        public var encodedMemoryCacheLimit: Int? = 32 * 1024 * 1024
        /// How long encoded output stays usable in the caches, memory and disk; after that it
        /// is made again from the original. `nil` (the default): as long as the caches keep it.
        /// A server that promises clients a `max-age` sets the same here, so what it serves
        /// never outlives what it promised.
        public var encodedImageMaxAge: Duration?
        /// A connection that is not established (TCP and TLS) within this long fails with
        /// ``NetworkFailure/Reason/connectTimedOut``, freeing its download slot. A refused
        /// connection or an unknown host fails at once, without waiting for it.
        public var connectTimeout: Duration = .seconds(5)
        /// Certificates trusted and shown over HTTPS, and the oldest TLS version offered.
        public var tls = TLSSettings()
        /// An egress HTTP proxy; `nil` connects directly. See ``ProxySettings/init(environment:)``
        /// to take it from `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY`.
        public var proxy: ProxySettings?
        /// Which addresses direct connections may reach, checked on the resolved address of
        /// every connection (redirects included); `nil` (the default) connects wherever DNS
        /// says. A server fetching URLs its clients chose wants ``AddressPolicy/publicOnly``.
        public var addressPolicy: AddressPolicy?
        /// Which hosts images may come from, checked on the requested URL, on every redirect
        /// before it is followed, and on the redirects behind bytes read from the disk cache.
        /// A request can add its own (``ImageRequest/sourcePolicy``); both must allow a host.
        /// Every host by default.
        public var sourcePolicy = SourcePolicy.anyHost
        /// A download that receives nothing for this long fails with ``MagpieError/timedOut(_:)``.
        public var idleTimeout: Duration = .seconds(15)
        /// A download that takes longer than this in all fails with ``MagpieError/timedOut(_:)``.
        public var totalTimeout: Duration = .seconds(60)
        /// Keeping what arrived of downloads that broke off, so the next load asks only for the
        /// rest; `nil` turns it off. See ``ResumableDownloads``.
        public var resumableDownloads: ResumableDownloads? = ResumableDownloads()
        /// Largest response body accepted, checked against `Content-Length` and while streaming.
        public var maximumResponseBytes = 64 * 1024 * 1024
        /// Largest image accepted, in pixels declared by its header; checked before decoding.
        public var maximumPixels = 100_000_000
        /// Largest number of frames an animation may have; checked before decoding. Over it, a
        /// load fails with ``MagpieError/animationTooLarge(_:)``, or decodes the first frame
        /// when the request has ``ImageRequest/Options/firstFrameWhenTooLarge``.
        public var maximumAnimationFrames = 1000
        /// Largest number of pixels in all the frames of an animation together (frames ×
        /// canvas), read from the header and checked before decoding, like
        /// ``maximumAnimationFrames``.
        public var maximumAnimationPixels = 100_000_000
        /// Redirects followed before failing with ``MagpieError/tooManyRedirects(_:)``.
        public var maximumRedirects = 5
        /// Whether `file:` URLs may be loaded (read directly, never cached on disk): a
        /// ``FileSystemLoader`` for the `file` scheme, unless ``sourceLoaders`` has its own.
        public var allowsFileURLs = false
        /// Loaders by scheme in lower case (`local`, `s3`...), beside the pipeline's own for
        /// `http`, `https` and `data` (which one registered here replaces). URLs of other schemes need
        /// no host; a remote loader's bytes are kept in the disk cache. See ``SourceLoader``.
        public var sourceLoaders: [String: any SourceLoader] = [:]
        /// How long a URL that failed for a non-transient reason is not tried again.
        /// `.zero` turns the blocklist off.
        public var failedURLBlockDuration: Duration = .seconds(300)
        /// Changes every request to a remote source before it is sent: add authorization, sign
        /// the URL.
        /// Throwing fails the load with ``MagpieError/network(_:)``.
        public var requestModifier: (@Sendable (inout OutgoingRequest) async throws -> Void)?
        /// Turns a URL into the key under which its bytes and images are cached. Use it to
        /// leave volatile parts, such as `?token=`, out of the key.
        public var cacheKey: @Sendable (URL) -> String = { $0.absoluteString }
        /// The decoder; ``VipsDecoder`` by default.
        public var decoder: any ImageDecoding = VipsDecoder()
        /// Threads reserved for decoding: one for each processor the process may use, which a
        /// container's CPU limit (its cgroup's quota, rounded up) makes fewer.
        public var decodingThreads = Processors.available
        /// Memory that decodes in progress may hold together, in bytes, estimated from each
        /// image's header before it is decoded: the bitmap it will produce and, for a progressive
        /// JPEG, every DCT coefficient of the image, which libjpeg holds while decoding even a
        /// small thumbnail (300 MB for a 575 kB, 49-megapixel file). Decodes start in the order
        /// they arrive while they fit; one needing more than the whole budget is decoded alone.
        /// Without it, a handful of small files could make the decoding threads allocate
        /// gigabytes at once. 256 MB by default.
        public var decodeMemoryBudget = 256_000_000
        /// Monotonic time for the blocklist and memory-cache TTL; replace it in tests.
        public var clock: @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
        /// Wall-clock time for HTTP freshness and disk-cache ages; replace it in tests.
        public var wallClock: @Sendable () -> Date = { Date() }
        /// Where the pipeline logs.
        public var logger = Logger(label: "magpie")
        /// Where counters and timers go; `nil` uses the process's bootstrapped `MetricsSystem`.
        public var metricsFactory: (any MetricsFactory)?
        /// Keeps weak references to every task, for tests that prove finished work is released.
        var tracksWork = false

        /// The defaults.
        public init() {}
    }

    /// Order among queued downloads of equal priority.
    public enum DownloadOrder: Sendable {
        /// First in, first out: the order of requests.
        case fifo
        /// Last in, first out: the newest request first, as for a scrolling list.
        case lifo
    }
}

/// What the disk cache keeps for a request (Nuke's `.storeOriginalData`, `.storeEncodedImages`
/// and `.storeAll`).
///
/// A *variant* is what a request with a ``ImageRequest/thumbnail`` or
/// ``ImageRequest/processors`` produces, encoded: JPEG when it is opaque, PNG when it has
/// transparency, so nothing a processor made is lost (rounded corners stay transparent).
/// Loading a variant from disk decodes a small file instead of the original and skips the
/// processors. A request without thumbnail or processors has no variant; its original bytes are
/// kept whatever the policy.
public enum DiskCachePolicy: Sendable, Hashable {
    /// Keep the original bytes (the default): every variant can be made from them again.
    case originals
    /// Keep encoded variants only.
    case variants
    /// Keep both.
    case originalsAndVariants

    var keepsOriginals: Bool { self != .variants }
    var keepsVariants: Bool { self != .originals }
}
