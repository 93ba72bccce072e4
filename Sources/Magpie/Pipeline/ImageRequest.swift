public import Foundation

/// What to load and how: a URL plus typed options.
///
/// ```swift
/// var request = ImageRequest(url: avatarURL)
/// request.thumbnail = .init(width: 128, height: 128, fit: .fill)
/// request.priority = .high
/// ```
public struct ImageRequest: Sendable, Hashable {
    /// The image's URL.
    public var url: URL
    /// Decode-time downsampling. `nil` decodes at full size.
    public var thumbnail: Thumbnail?
    /// Transformations applied in order after decoding. Requests whose processors share a
    /// prefix share the work of that prefix.
    public var processors: [any ImageProcessing]
    /// What the disk cache keeps for this request; `nil` uses the pipeline's
    /// ``ImagePipeline/Configuration/diskCachePolicy``.
    public var diskCachePolicy: DiskCachePolicy?
    /// Scheduling priority of the download; can also be changed later on ``ImageTask``.
    public var priority: Priority
    /// Cache and retry behaviour.
    public var options: Options
    /// Extra HTTP header fields sent with this request (added to those of the request modifier).
    /// Conditions a caller adds itself (`If-None-Match`, `If-Modified-Since`, to ask whether a
    /// version it holds is current) are sent when the bytes are not in the disk cache; a 304
    /// to them throws ``MagpieError/notModified(_:_:)``.
    public var headers: [String: String]
    /// Hosts this request may load from, in addition to the pipeline's
    /// ``ImagePipeline/Configuration/sourcePolicy``: a host must be allowed by both, on the
    /// requested URL and on every redirect. An image loaded under a policy is cached in memory
    /// apart from the same image loaded without it.
    public var sourcePolicy: SourcePolicy?
    /// Dots per inch at which a vector source (SVG) whose size is written in physical units
    /// (`in`, `cm`, `mm`, `pt`, `pc`) is drawn: an inch is this many pixels. `nil` draws at
    /// libvips' 72 (a point is a pixel). Sizes in pixels do not depend on it. The drawn size is
    /// held to ``ImagePipeline/Configuration/maximumPixels`` like any other image's.
    public var vectorDPI: Double?

    /// Creates a request for `url`.
    public init(
        url: URL,
        thumbnail: Thumbnail? = nil,
        processors: [any ImageProcessing] = [],
        priority: Priority = .normal,
        options: Options = [],
        headers: [String: String] = [:],
        diskCachePolicy: DiskCachePolicy? = nil
    ) {
        self.url = url
        self.thumbnail = thumbnail
        self.processors = processors
        self.diskCachePolicy = diskCachePolicy
        self.priority = priority
        self.options = options
        self.headers = headers
    }

    /// Download priority. A download shared by several requests runs at the highest.
    public enum Priority: Int, Sendable, Comparable, CaseIterable {
        case veryLow, low, normal, high, veryHigh

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Per-request switches.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// Load even if this URL failed recently for a non-transient reason.
        public static let retryFailed = Options(rawValue: 1 << 0)
        /// Revalidate cached bytes with the server (`If-None-Match` / `If-Modified-Since`);
        /// a 304 serves the cached bytes and refreshes their metadata. Skips the memory cache.
        public static let refreshCached = Options(rawValue: 1 << 1)
        /// Keep the result in memory only; nothing is written to the disk cache.
        public static let memoryCacheOnly = Options(rawValue: 1 << 2)
        /// Serve from the caches only; never touch the network. Fails with
        /// ``MagpieError/notCached`` on a miss.
        public static let cacheOnly = Options(rawValue: 1 << 3)
        /// Ignore both caches when reading; the result is still stored in them.
        public static let networkOnly = Options(rawValue: 1 << 4)
        /// Send ``ImageTask/Event/preview(_:)`` events while a JPEG downloads (the server must
        /// send `Content-Length`). Costs a partial decode at each quarter of the body.
        public static let progressivePreviews = Options(rawValue: 1 << 5)
        /// Put the original bytes in ``ImageContainer/data``. Skips the memory cache, which
        /// keeps pixels only.
        public static let returnsOriginalData = Options(rawValue: 1 << 6)
        /// Decode only the first frame of an animated GIF or WebP (SDWebImage's
        /// `decodeFirstFrameOnly`). The result is a still, cached apart from the animation.
        public static let firstFrameOnly = Options(rawValue: 1 << 7)
        /// An animation over the pipeline's frame or pixel limit decodes as its first frame
        /// instead of failing with ``MagpieError/animationTooLarge(_:)``.
        public static let firstFrameWhenTooLarge = Options(rawValue: 1 << 8)
        /// A still with more than 8 bits a sample (a 16-bit PNG or TIFF) keeps 16 bits a sample
        /// (``DecodedImage/sampleDepth``), so PNG and TIFF output keep them too. Processors that
        /// keep them (``ImageProcessing/keepsHighDepth``: the geometry, flattening, watermarks)
        /// see 16 bits; any other gets the image narrowed to 8, and so does what follows it.
        /// Cached apart from the 8-bit image.
        public static let keepsHighDepth = Options(rawValue: 1 << 9)
    }

    /// Requests are equal when they load the same thing the same way; processors compare by
    /// ``ImageProcessing/identifier``.
    public static func == (lhs: ImageRequest, rhs: ImageRequest) -> Bool {
        lhs.url == rhs.url && lhs.thumbnail == rhs.thumbnail && lhs.priority == rhs.priority && lhs.options == rhs.options
            && lhs.headers == rhs.headers && lhs.diskCachePolicy == rhs.diskCachePolicy && lhs.sourcePolicy == rhs.sourcePolicy
            && lhs.vectorDPI == rhs.vectorDPI && lhs.processors.map(\.identifier) == rhs.processors.map(\.identifier)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(thumbnail)
        hasher.combine(options)
        for processor in processors { hasher.combine(processor.identifier) }
    }

    /// Downsampling applied while decoding, so the full bitmap is never held when the
    /// format allows shrink-on-load (JPEG, WebP, HEIF).
    public struct Thumbnail: Sendable, Hashable {
        /// Largest width in pixels; 0 leaves the width to the height and the aspect ratio.
        public var width: Int
        /// Largest height in pixels; 0 leaves the height to the width and the aspect ratio.
        public var height: Int
        /// How the image is brought to the box; a fill is centre-cropped.
        public var fit: Fit

        /// Creates a thumbnail box. The image is never enlarged.
        public init(width: Int, height: Int, fit: Fit = .fit) {
            self.width = width
            self.height = height
            self.fit = fit
        }
    }
}
