public import Foundation

/// Everything that can go wrong while loading an image.
///
/// Every case carries enough detail to act on, and `description` is a sentence a person can
/// read. Cancellation is a case like any other: a cancelled load throws ``cancelled``.
/// ``stage`` says which part of the pipeline failed.
///
/// New cases are added as Magpie gains features, without a major release: a `switch` over
/// this type needs a `default` clause (the hidden case `_nonExhaustive` makes the compiler ask
/// for one today, so code written now keeps compiling when cases are added).
///
/// ```swift
/// do {
///     let image = try await pipeline.image(for: url)
/// } catch MagpieError.httpStatus(404, _) {
///     showMissingAvatar()
/// }
/// ```
public enum MagpieError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL cannot be loaded: malformed, no host, or a scheme that is not allowed.
    case invalidURL(String, reason: String)
    /// The URL failed recently for a reason that retrying will not fix; the load was not tried.
    /// Set ``ImageRequest/Options/retryFailed`` to try anyway.
    case blocked(URL)
    /// The server answered with a status other than 2xx (or 304 to a revalidation).
    case httpStatus(Int, URL)
    /// A ``SourceLoader`` found nothing at the URL (a missing file under a file-system
    /// loader's root): the counterpart of an HTTP 404 for sources that are not HTTP.
    case sourceNotFound(URL)
    /// The store the source lives in refused or failed the request (a bad signature, access
    /// denied, the store unavailable); `reason` is the store's own (an S3 error code and
    /// message).
    case sourceRefused(URL, status: Int, reason: String)
    /// The response body is larger than ``ImagePipeline/Configuration/maximumResponseBytes``.
    case responseTooLarge(limit: Int)
    /// The host is not allowed by the ``SourcePolicy``: the requested URL's own host
    /// (`hop` 0) or the host a redirect leads to (`hop` 1 for the first redirect...). Nothing
    /// was sent to that host. `url` is the URL that was requested.
    case sourceNotAllowed(host: String, hop: Int, url: URL)
    /// More redirects than ``ImagePipeline/Configuration/maximumRedirects``.
    case tooManyRedirects(URL)
    /// No progress for the idle timeout, or the whole load took longer than the total timeout.
    case timedOut(URL)
    /// The load was cancelled by its caller.
    case cancelled
    /// A connection-level failure: host not found, refused, connect timed out, certificate not
    /// trusted, reset before the body ended. ``NetworkFailure/reason`` says which.
    case network(NetworkFailure)
    /// The bytes are not an image, or are an image format Magpie does not decode.
    case unsupportedFormat(String)
    /// The decoder started but failed; the message is the decoder's own. libvips keeps one
    /// error buffer for the whole process (libvips#5010), so when two decodes fail at the same
    /// moment either may read the other's words, or none ("decoding failed").
    case decodingFailed(String)
    /// A processor failed; `processor` is its ``ImageProcessing/identifier``.
    case processingFailed(processor: String, reason: String)
    /// Encoding an image failed (``ImageEncoder``, or a processed variant for the disk cache).
    case encodingFailed(format: String, reason: String)
    /// The image declares more pixels than ``ImagePipeline/Configuration/maximumPixels``;
    /// refused before decoding.
    case imageTooLarge(width: Int, height: Int, limit: Int)
    /// The animation has more frames than ``ImagePipeline/Configuration/maximumAnimationFrames``
    /// or more pixels in all its frames than ``ImagePipeline/Configuration/maximumAnimationPixels``;
    /// refused before decoding. ``ImageRequest/Options/firstFrameWhenTooLarge`` asks for its
    /// first frame instead.
    case animationTooLarge(String)
    /// The result the processors would make is larger than they may make: `width` × `height`
    /// against at most `maximumPixels`, and `maximumSide` on a side. Refused before any of it is
    /// allocated.
    case outputTooLarge(width: Int, height: Int, maximumSide: Int, maximumPixels: Int)
    /// The request asked for cached data only and there was none.
    case notCached
    /// The server answered 304 Not Modified to conditions the request carried itself
    /// (`If-None-Match` or `If-Modified-Since` in ``ImageRequest/headers``): what the caller
    /// holds of the URL is current, and no bytes came. Carries the answer's validators. (A
    /// revalidation of Magpie's own cached bytes never throws this: it answers with them.)
    case notModified(URL, HTTPMetadata)
    /// Reading or writing the disk cache failed. Loads never fail for this reason on their
    /// own; the case is used by the disk cache's own API.
    case diskCache(String)
    /// Never thrown. Its only purpose is to require a `default` clause in switches, so that
    /// cases added later do not break code that switches over this type.
    case _nonExhaustive

    /// The parts of a load, for saying where an error happened.
    public enum Stage: String, Sendable, CaseIterable {
        /// Checking the request before any work (URL, blocklist).
        case request
        /// Getting the original bytes: disk cache, network.
        case fetch
        /// Decoding bytes to pixels.
        case decode
        /// Running the request's processors.
        case process
        /// Encoding pixels to bytes.
        case encode
        /// The disk cache's own API.
        case cache
    }

    /// Which stage failed. Cancellation reports ``Stage/request``.
    public var stage: Stage {
        switch self {
        case .invalidURL, .blocked, .cancelled, ._nonExhaustive: .request
        case .sourceNotAllowed(_, let hop, _): hop == 0 ? .request : .fetch
        case .httpStatus, .sourceNotFound, .sourceRefused, .responseTooLarge, .tooManyRedirects, .timedOut, .network, .notCached, .notModified: .fetch
        case .unsupportedFormat, .decodingFailed, .imageTooLarge, .animationTooLarge: .decode
        case .processingFailed, .outputTooLarge: .process
        case .encodingFailed: .encode
        case .diskCache: .cache
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "Invalid URL \(url): \(reason)."
        case .blocked(let url):
            "\(url.absoluteString) failed recently and is not tried again yet (use retryFailed to force it)."
        case .httpStatus(let code, let url): "The server answered HTTP \(code) for \(url.absoluteString)."
        case .sourceNotFound(let url): "Nothing is found at \(url.absoluteString)."
        case .sourceRefused(let url, let status, let reason): "The store answered \(status) for \(url.absoluteString): \(reason)."
        case .responseTooLarge(let limit): "The response is larger than the limit of \(limit) bytes."
        case .sourceNotAllowed(let host, 0, let url):
            "The host '\(host)' of \(url.absoluteString) is not on the list of allowed source hosts."
        case .sourceNotAllowed(let host, let hop, let url):
            "Redirect \(hop) of \(url.absoluteString) leads to the host '\(host)', which is not on the list of allowed source hosts."
        case .tooManyRedirects(let url): "Too many redirects loading \(url.absoluteString)."
        case .timedOut(let url): "Loading \(url.absoluteString) timed out."
        case .cancelled: "The load was cancelled."
        case .network(let message): "Network error: \(message)."
        case .unsupportedFormat(let message): "Not a supported image: \(message)."
        case .decodingFailed(let message): "Decoding failed: \(message)."
        case .processingFailed(let processor, let reason): "Processing with \(processor) failed: \(reason)."
        case .encodingFailed(let format, let reason): "Encoding \(format) failed: \(reason)."
        case .imageTooLarge(let width, let height, let limit):
            "The image is \(width)x\(height) pixels, more than the limit of \(limit) pixels."
        case .animationTooLarge(let message): "The animation is too large: \(message)."
        case .outputTooLarge(let width, let height, let side, let pixels):
            "The result would be \(width)x\(height) pixels; at most \(pixels) pixels and \(side) on a side."
        case .notCached: "The image is not cached and the request allows cached data only."
        case .notModified(let url, _): "\(url.absoluteString) is not modified since the version the request's own conditions name (304)."
        case .diskCache(let message): "Disk cache error: \(message)."
        case ._nonExhaustive: "Unknown error."
        }
    }

    /// Whether the same request may succeed if tried again later. Failures that are not
    /// transient are remembered by the failed-URL blocklist.
    public var isTransient: Bool {
        switch self {
        case .httpStatus(let code, _), .sourceRefused(_, let code, _): code == 408 || code == 429 || code >= 500
        case .unsupportedFormat, .decodingFailed, .imageTooLarge, .animationTooLarge, .invalidURL, .tooManyRedirects, .sourceNotFound,
            .responseTooLarge, .processingFailed, .outputTooLarge, .encodingFailed, .sourceNotAllowed:
            false
        case .network(let failure): failure.isTransient
        case .blocked, .timedOut, .cancelled, .notCached, .notModified, .diskCache, ._nonExhaustive: true
        }
    }
}
