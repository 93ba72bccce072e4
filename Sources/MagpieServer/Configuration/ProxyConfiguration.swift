public import Foundation
public import Logging
public import Magpie

/// Everything `magpie proxy` and ``ImageProxy`` can be told. The defaults suit a server that
/// fetches URLs its clients chose: public addresses only, originals on disk, results in memory.
public struct ProxyConfiguration: Sendable {
    /// The pipeline that makes and caches every result. Its address policy defaults to
    /// ``Magpie/AddressPolicy/publicOnly``; its memory cache of decoded images is off (encoded
    /// results are kept in memory instead), and its disk keeps originals and results.
    public var pipeline: ImagePipeline.Configuration
    /// Keys that sign URLs; the first signs (``URLSigner``), every one is accepted.
    public var signingKeys: [SigningKey] = []
    /// Bytes of the HMAC-SHA256 a signature carries, 1...32: imgproxy's
    /// `IMGPROXY_SIGNATURE_SIZE`, for URLs signed by clients set to truncate. 32 (all of it) by
    /// default.
    public var signatureSize = 32
    /// Thumbor's `SECURITY_KEY`s: thumbor URLs signed with any of them are accepted (HMAC-SHA1,
    /// ``ThumborSigner``). None: only unsigned thumbor URLs, when ``allowsUnsignedURLs``.
    public var thumborSecurityKeys: [String] = []
    /// Serve only imgproxy's URLs under this path prefix (`/img`), and only thumbor's under
    /// ``thumborPathPrefix``; without prefixes both are served at the root, told apart by the
    /// form of the URL (a thumbor signature is 28 characters ending in `=`; after `unsafe`, an
    /// imgproxy URL's source is `plain/…` or base64).
    public var imgproxyPathPrefix: String?
    public var thumborPathPrefix: String?
    /// Accept URLs whose signature segment is `unsafe`. For development only.
    public var allowsUnsignedURLs = false
    /// Source hosts that may be fetched, on the source URL and on every redirect: the
    /// pipeline's ``Magpie/ImagePipeline/Configuration/sourcePolicy``.
    public var sources: SourcePolicy {
        get { pipeline.sourcePolicy }
        set { pipeline.sourcePolicy = newValue }
    }
    /// Named option sets, `name` → `s:256:256/fit:fill`, used as `pr:name` in URLs.
    public var presets: [String: String] = [:]
    /// Caps on what a URL can ask for.
    public var limits = ProcessingLimits()
    /// The longest side a result may have; a larger one is scaled down to fit, its canvases
    /// with it (imgproxy's `IMGPROXY_MAX_RESULT_DIMENSION`). `nil`: only ``limits`` bound it.
    public var maximumResultDimension: Int?
    /// Let URLs lower the source and result limits for themselves (imgproxy's per-URL security
    /// options and `IMGPROXY_ALLOW_SECURITY_OPTIONS`): never above the limits set here.
    public var allowsSecurityOptions = false
    /// Draw an SVG source as a raster even where an imgproxy URL names no raster format
    /// (imgproxy's `IMGPROXY_ALWAYS_RASTERIZE_SVG`); otherwise such a URL for an `.svg` source
    /// passes the document through, sanitised, as imgproxy does.
    public var alwaysRasterizesSVG = false
    /// Formats a thumbor URL without `format()` is written in when the client accepts them
    /// (thumbor's `AUTO_WEBP`, `AUTO_AVIF`, `AUTO_JPG`, `AUTO_HEIF` and `AUTO_PNG`), tried in
    /// thumbor's order (WebP, AVIF, JPEG, HEIF, PNG), answered with `Vary: Accept`.
    public var thumborAutoFormats: Set<ImageFormat> = []
    /// thumbor's `AUTO_IMAGE_FORMAT_PREFERENCE`: when not empty, these formats, in this order,
    /// instead of ``thumborAutoFormats``.
    public var thumborFormatPreference: [ImageFormat] = []
    /// Write a thumbor URL's opaque PNG source as JPEG where no format is asked (thumbor's
    /// `AUTO_PNG_TO_JPG`).
    public var thumborOpaquePNGAsJPEG = false
    /// thumbor filters beyond its built-in ones that the operator added (its `FILTERS`):
    /// `autojpg`.
    public var thumborOptionalFilters: Set<String> = []
    /// `Access-Control-Allow-Origin` of images and descriptions, so pages elsewhere may read
    /// them (imgproxy's `IMGPROXY_ALLOW_ORIGIN`, thumbor's `ACCESS_CONTROL_ALLOW_ORIGIN_HEADER`);
    /// `nil` sends none.
    public var allowedOrigin: String?
    /// thumbor's `MAX_WIDTH` and `MAX_HEIGHT`: a source over them is taken smaller before a
    /// thumbor URL's crop and resize, as thumbor normalises it, and a URL's asked sides are
    /// capped at them, each on its own, as thumbor caps them (0: no limit on that side).
    public var thumborSourceLimit: DecodedImage.Size?
    /// thumbor's `SVG_DPI`: how many pixels an inch is in an SVG sized in physical units (`in`,
    /// `cm`, `pt`) drawn for a thumbor URL; 150, thumbor's default. imgproxy's URLs draw such an
    /// SVG at 72, as imgproxy does. Sizes in pixels do not depend on it.
    public var thumborSVGDPI: Double = 150
    /// thumbor's `MAX_AGE`: the seconds thumbor URLs' answers say they may be kept
    /// (`public, max-age=N`, or `no-cache` for 0), over ``cacheMaxAge``; `nil` keeps that.
    public var thumborMaxAge: Int?
    /// Where thumbor's health check answers `WORKING` (its `HEALTHCHECK_ROUTE`): a path, its
    /// trailing slash optional when it ends `/?`.
    public var thumborHealthcheckRoute = "/healthcheck/?"
    /// How the deployment's imgproxy URLs are written (its `IMGPROXY_ARGUMENTS_SEPARATOR`,
    /// `IMGPROXY_ONLY_PRESETS`, `IMGPROXY_BASE_URL`, `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`,
    /// `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`, `IMGPROXY_TRUSTED_SIGNATURES`).
    public var imgproxyURLRules = ImgproxyURLRules()
    /// Formats an imgproxy URL without a format is written in when the client's `Accept` names
    /// them (`IMGPROXY_AUTO_WEBP`, `_AVIF`, `_JXL`): JPEG XL, then AVIF, for stills, then WebP.
    public var imgproxyAutoFormats: Set<ImageFormat> = []
    /// The same, over a format the URL names (`IMGPROXY_ENFORCE_WEBP`, `_AVIF`, `_JXL`).
    public var imgproxyEnforcedFormats: Set<ImageFormat> = []
    /// Source formats an imgproxy URL without a format keeps (`IMGPROXY_PREFERRED_FORMATS`);
    /// another source is written as JPEG, or PNG with transparency, or GIF when animated.
    public var imgproxyPreferredFormats: [ImageFormat] = [.jpeg, .png, .gif]
    /// The operator's watermark, laid where a URL says `wm` (`IMGPROXY_WATERMARK_PATH` or
    /// `IMGPROXY_WATERMARK_DATA`).
    public var watermark: ImageProcessors.Watermark.Mark?
    /// The operator's watermark fetched from a URL instead (`IMGPROXY_WATERMARK_URL`).
    public var watermarkURL: URL?
    /// Multiplies every watermark's opacity (`IMGPROXY_WATERMARK_OPACITY`).
    public var watermarkOpacity = 1.0
    /// Keep a 16-bit source's depth where the output holds it, unless a URL says otherwise
    /// (imgproxy's `IMGPROXY_PRESERVE_HDR`, `preserve_hdr`); imgproxy's URLs only, as thumbor
    /// writes 8 bits a sample.
    public var preservesHighDepth = false
    /// The processors an imgproxy URL's option segments may name beside imgproxy's own options,
    /// applied after the resize in this order: Magpie's shared ones (``Magpie/ProcessingOption/all``)
    /// and any the deployment adds. A name one of imgproxy's options has is refused at start.
    public var processingOptions = ProcessingOption.all
    /// JPEG, WebP and AVIF quality when the URL gives none.
    public var defaultQuality = 80
    /// Quality for particular output formats, over ``defaultQuality`` (imgproxy's
    /// `IMGPROXY_FORMAT_QUALITY`); a URL's `fq:` is over both.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// `Cache-Control: max-age` of images, and how long the proxy serves a result from its
    /// caches (the pipeline's ``Magpie/ImagePipeline/Configuration/encodedImageMaxAge``).
    public var cacheMaxAge: Duration = .seconds(86_400)
    /// `stale-while-revalidate` of images; zero leaves it out.
    public var staleWhileRevalidate: Duration = .seconds(3_600)
    /// The answers' `ETag` and `Last-Modified`, and what of a client's conditions is asked of
    /// the origin (imgproxy's `IMGPROXY_USE_ETAG`, `IMGPROXY_USE_LAST_MODIFIED`).
    public var validation = AnswerValidation()
    /// Answer with the source's own caching (its `Cache-Control`, or `max-age` to its
    /// `Expires`) where it sent any, instead of ``cacheMaxAge`` (imgproxy's
    /// `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`). A URL's own `max_age` still wins.
    public var passesSourceCacheControl = false
    /// `Cache-Control: max-age` of errors: short, so a fixed source is served soon.
    public var errorMaxAge: Duration = .seconds(10)
    /// Bytes of encoded results kept in memory: the pipeline's
    /// ``Magpie/ImagePipeline/Configuration/encodedMemoryCacheLimit``.
    public var resultMemoryLimit: Int {
        get { pipeline.encodedMemoryCacheLimit ?? 0 }
        set { pipeline.encodedMemoryCacheLimit = newValue }
    }
    /// Requests starting new work at once (download, decode, processing, encoding), two per
    /// core as imgproxy's workers; a container's CPU limit counts as its cores, rounded up, as
    /// Go's runtime counts them for imgproxy. A request for a result already being made joins that work and
    /// takes no slot. How many decodes and encodes run at once is the pipeline's
    /// (``Magpie/ImagePipeline/Configuration/decodingThreads``, one per core); `magpie proxy`
    /// gives each slot a decoding thread and libvips one thread an operation
    /// (``Magpie/Libvips/threadsPerOperation``), as imgproxy runs.
    public var processingSlots = 2 * Processors.available
    /// Requests waiting for a slot; beyond this, requests get 503 with `Retry-After`.
    public var queueLimit = 64
    /// The queue that stands for imgproxy's `IMGPROXY_REQUESTS_QUEUE_SIZE=0`, which has no limit:
    /// every waiting request holds a connection and a task, so Magpie keeps a bound, one no
    /// burst of a deployment's clients reaches.
    public static let unlimitedQueue = 4096
    /// The prefix of imgproxy's metric names in `/metrics` (`requests_total` becomes
    /// `NAMESPACE_requests_total`), as imgproxy's `IMGPROXY_PROMETHEUS_NAMESPACE`; none by default.
    /// Magpie's own (`magpie_*`) are beside them either way.
    public var prometheusNamespace: String?
    /// Memory that decodes in progress may hold together, in bytes: the pipeline's
    /// ``Magpie/ImagePipeline/Configuration/decodeMemoryBudget``. Progressive JPEGs keep every
    /// coefficient of the image while decoding (about 3 bytes a pixel for a photo, 6 with
    /// full-size chroma), so a few large ones at once could take gigabytes. A source that needs
    /// more than the whole budget is decoded alone.
    public var decodeMemoryBudget: Int {
        get { pipeline.decodeMemoryBudget }
        set { pipeline.decodeMemoryBudget = newValue }
    }
    /// A request taking longer gets 504.
    public var requestTimeout: Duration = .seconds(30)
    /// The longest ``requestTimeout`` a setting or flag may give, in seconds: an hour (a larger
    /// number of seconds overflowed the nanoseconds and stopped the process at start).
    public static let longestRequestTimeout = 3600.0
    /// Where the access log and errors go.
    public var logger = Logger(label: "magpie.proxy")

    /// The defaults, with originals cached on disk in `cacheDirectory` (none: no disk cache).
    public init(cacheDirectory: URL? = nil) {
        var pipeline = ImagePipeline.Configuration()
        pipeline.addressPolicy = .publicOnly
        pipeline.memoryCache = nil
        pipeline.encodedMemoryCacheLimit = 64 * 1024 * 1024
        pipeline.diskCachePolicy = .originalsAndVariants
        pipeline.diskCache = cacheDirectory.map { DataCache.Configuration(directory: $0) }
        pipeline.maximumConcurrentDownloads = 32
        pipeline.maximumPixels = 50_000_000
        pipeline.maximumResponseBytes = 32_000_000
        // A failing source answers with its own status every time (404, 422...), not a
        // blocklist's; a CDN in front keeps errors for ``errorMaxAge``.
        pipeline.failedURLBlockDuration = .zero
        self.pipeline = pipeline
    }
}
