public import Foundation

/// A request's finished image as bytes, with what an HTTP answer needs to describe it.
public struct EncodedImage: Sendable {
    /// The encoded bytes.
    public let data: [UInt8]
    /// Their format.
    public let format: ImageFormat
    /// Where the original's bytes came from (as for ``ImageResponse/source``), or `.memory` and
    /// `.disk` when the encoded bytes themselves came from a cache (``cache``).
    public let source: ImageSource
    /// The cache the encoded bytes came from; `nil` when they were encoded for this request.
    public let cache: Cache?
    /// Names the version of the original they were made from: its `ETag`, else its
    /// `Last-Modified`, else a hash of its bytes. New bytes at the URL mean a new validator.
    public let sourceValidator: String
    /// The original's `Last-Modified`, if its server sent one.
    public let sourceLastModified: String?
    /// How the original's server let it be cached (``HTTPMetadata/cacheControl``).
    public let sourceCacheControl: String?
    /// When these bytes were encoded (for a disk hit, when they were stored); `nil` for an entry
    /// kept before Magpie recorded it.
    public let encodedAt: Date?
    /// The original's `ETag`, if its server sent one: ``sourceValidator`` is then that tag (a
    /// tag is quoted, which neither a date nor a digest is).
    public var sourceETag: String? {
        sourceValidator.hasPrefix("\"") || sourceValidator.hasPrefix("W/\"") ? sourceValidator : nil
    }
    /// How long each stage took for the work that made it (none for a cache hit).
    package var timings = StageTimings()

    /// A cache of encoded images: this process's memory, this machine's disk, or the store
    /// replicas share (``SharedStore``).
    public enum Cache: String, Sendable, Hashable, CaseIterable {
        case memory, disk, shared
    }

    init(
        data: [UInt8], format: ImageFormat, source: ImageSource, cache: Cache?, sourceValidator: String, sourceLastModified: String?,
        sourceCacheControl: String?, encodedAt: Date?
    ) {
        self.data = data
        self.format = format
        self.source = source
        self.cache = cache
        self.sourceValidator = sourceValidator
        self.sourceLastModified = sourceLastModified
        self.sourceCacheControl = sourceCacheControl
        self.encodedAt = encodedAt
    }

    /// The same bytes answered from `cache`.
    func answered(from cache: Cache) -> EncodedImage {
        EncodedImage(
            data: data, format: format, source: cache == .memory ? .memory : .disk, cache: cache, sourceValidator: sourceValidator,
            sourceLastModified: sourceLastModified, sourceCacheControl: sourceCacheControl, encodedAt: encodedAt)
    }

    /// The validator of an original: the one way both the encode stage and a caller holding the
    /// original (``ImagePipeline/data(for:)``) name its version.
    public static func validator(of original: [UInt8], metadata: HTTPMetadata?) -> String {
        validator(fromMetadata: metadata) ?? "sha256:" + DiskEntryFormat.sha256Hex(original).prefix(32)
    }

    /// The validator the origin gave (its ETag, else its Last-Modified), or `nil` when only
    /// the bytes' digest can name the version.
    public static func validator(fromMetadata metadata: HTTPMetadata?) -> String? {
        metadata?.etag ?? metadata?.lastModified
    }
}
