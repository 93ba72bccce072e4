import Foundation

/// The keys one request is known by at each stage. Two requests with equal keys at a stage
/// need the same work there, and share it.
struct RequestKeys: Sendable {
    /// What identifies the original bytes, for the disk cache and the blocklist.
    let data: String
    /// What identifies the finished image, for the memory cache.
    let image: ImageCacheKey
    /// What identifies a fetch of the bytes: cache behaviour and headers change its outcome.
    let dataWork: DataWorkKey
    /// What identifies a decode: the fetch plus how it is decoded.
    let imageWork: ImageWorkKey

    init(_ request: ImageRequest, cacheKey: (URL) -> String) {
        data = cacheKey(request.url)
        image = ImageCacheKey(dataKey: data, thumbnail: request.thumbnail)
        dataWork = DataWorkKey(
            data: data, url: request.url, headers: request.headers,
            options: request.options.intersection([.refreshCached, .memoryCacheOnly, .cacheOnly, .networkOnly, .progressivePreviews]))
        imageWork = ImageWorkKey(data: dataWork, thumbnail: request.thumbnail)
    }
}

struct DataWorkKey: Hashable, Sendable {
    let data: String
    let url: URL
    let headers: [String: String]
    let options: ImageRequest.Options
}

struct ImageWorkKey: Hashable, Sendable {
    let data: DataWorkKey
    let thumbnail: ImageRequest.Thumbnail?
}

/// Original bytes and where they came from.
struct LoadedData: Sendable {
    let bytes: [UInt8]
    let contentType: String?
    let source: ImageSource
}

/// A decoded image and where its bytes came from.
struct LoadedImage: Sendable {
    let image: DecodedImage
    let source: ImageSource
}
