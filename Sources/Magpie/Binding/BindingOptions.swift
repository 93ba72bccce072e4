/// How ``ImagePipeline/bind(_:to:options:)`` loads and shows an image.
public struct BindingOptions: Sendable {
    /// Shown at once when the image is not in the memory cache, and when bound to `nil`.
    public var placeholder: DecodedImage?
    /// Shown when the load fails; `nil` leaves the placeholder.
    public var failureImage: DecodedImage?
    /// Downsampling for the target's size.
    public var thumbnail: ImageRequest.Thumbnail?
    /// Processors applied after decoding (see ``ImageRequest/processors``).
    public var processors: [any ImageProcessing]
    /// Priority of the download.
    public var priority: ImageRequest.Priority
    /// Cache and retry behaviour.
    public var requestOptions: ImageRequest.Options
    /// Let the previous request of a rebound target finish (into the caches) instead of
    /// cancelling it. Its image is never shown on the target either way.
    public var keepsPreviousRequestRunning: Bool
    /// Called on the main actor as bytes arrive, while the bind is still current.
    public var progress: (@MainActor @Sendable (_ received: Int, _ expected: Int?) -> Void)?
    /// Called once on the main actor when the bind completes, fails or is cancelled, unless the
    /// target was deallocated first.
    public var completion: (@MainActor @Sendable (Result<ImageResponse, MagpieError>) -> Void)?

    /// Creates options.
    public init(
        placeholder: DecodedImage? = nil, failureImage: DecodedImage? = nil, thumbnail: ImageRequest.Thumbnail? = nil,
        processors: [any ImageProcessing] = [], priority: ImageRequest.Priority = .normal, requestOptions: ImageRequest.Options = [],
        keepsPreviousRequestRunning: Bool = false,
        progress: (@MainActor @Sendable (Int, Int?) -> Void)? = nil,
        completion: (@MainActor @Sendable (Result<ImageResponse, MagpieError>) -> Void)? = nil
    ) {
        self.placeholder = placeholder
        self.failureImage = failureImage
        self.thumbnail = thumbnail
        self.processors = processors
        self.priority = priority
        self.requestOptions = requestOptions
        self.keepsPreviousRequestRunning = keepsPreviousRequestRunning
        self.progress = progress
        self.completion = completion
    }
}
