/// Where a pipeline keeps decoded images for synchronous reads (Nuke's `ImageCaching`).
/// ``ImageCache`` is the default; give your own in ``ImagePipeline/Configuration/imageCache``.
///
/// Every method is called from any thread, and ``subscript(_:)`` on the path of a memory hit,
/// which the pipeline answers without suspending: keep it a short, non-blocking lookup.
public protocol ImageCaching: AnyObject, Sendable {
    /// The image stored under `key`, or `nil`.
    subscript(key: ImageCacheKey) -> DecodedImage? { get }
    /// Stores `image` under `key`; the cache may decline or evict to stay within its limits.
    func store(_ image: DecodedImage, for key: ImageCacheKey)
    /// Removes the image stored under `key`.
    func removeValue(for key: ImageCacheKey)
    /// Removes every image (the pipeline does when memory is short).
    func removeAll()
    /// Total cost (decoded bytes) of the images held.
    var totalCost: Int { get }
    /// Number of images held.
    var count: Int { get }
}

extension ImageCache: ImageCaching {}
