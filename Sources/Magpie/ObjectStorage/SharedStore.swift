/// A bucket in an object store speaking the S3 protocol (AWS S3, Cloudflare R2, Google Cloud
/// Storage, Ceph, MinIO, SeaweedFS) where processes share what they make: the variants one
/// renders, every other reads instead of rendering again; with ``keeps`` including originals,
/// what one downloads, the others read instead of downloading.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.diskCachePolicy = .originalsAndVariants
/// configuration.sharedStore = SharedStore(
///     endpoint: S3Endpoint(environment: ProcessInfo.processInfo.environment), bucket: "thumbnails", prefix: "v1/")
/// ```
///
/// The store sits behind the memory cache and the disk cache: a read tries memory, then the
/// disk, then the bucket (and keeps a hit on disk); a write goes to the disk and, in the
/// background, to the bucket. Objects are named by what determines their bytes (the
/// original's key and the variant's name, hashed), never by anything a client signs, so keys
/// can rotate. Each object carries its checksum, its key, its validators and its expiry as
/// metadata (`x-amz-meta-magpie-*`); a read that finds the checksum or the key wrong, or the
/// expiry past, removes the object and misses. Variants are written once
/// (`If-None-Match: *`): two processes rendering the same variant cannot replace each other's.
///
/// A store that fails (unreachable, slower than ``timeout``, refusing) never fails a load: the
/// load goes on without it, the failure is logged and counted
/// (``PipelineStatistics/sharedStore``, `magpie_shared_store_total{outcome="failed"}`), and the
/// store is left alone for ``pauseAfterFailure`` before it is tried again.
public struct SharedStore: Sendable {
    /// Where the store is and how requests to it are signed.
    public var endpoint: S3Endpoint
    /// The bucket; it must exist.
    public var bucket: String
    /// Put before every object's name (`v1/`, `magpie/`), so one bucket can hold several
    /// stores; a `/` is added when it does not end in one.
    public var prefix: String
    /// What goes to the bucket: variants (the default: what costs a render), originals (what
    /// costs a download), or both. What it keeps is kept on the local disk too, whatever
    /// ``ImagePipeline/Configuration/diskCachePolicy`` says.
    public var keeps: DiskCachePolicy
    /// How long one request to the store may take before the load goes on without it.
    public var timeout: Duration = .seconds(2)
    /// How long a store that failed is left alone.
    public var pauseAfterFailure: Duration = .seconds(5)
    /// The largest object read; a larger one is a miss.
    public var largestObject = 64 * 1024 * 1024
    /// Writes in flight at once, and the bytes they may hold together; more are dropped (and
    /// counted), so a slow store cannot make the process hold every result it made.
    public var maximumPendingWrites = 64
    public var maximumPendingBytes = 64 * 1024 * 1024

    /// A store in `bucket` at `endpoint`, its objects' names starting with `prefix`.
    public init(endpoint: S3Endpoint, bucket: String, prefix: String = "", keeps: DiskCachePolicy = .variants) {
        self.endpoint = endpoint
        self.bucket = bucket
        self.prefix = prefix
        self.keeps = keeps
    }
}
