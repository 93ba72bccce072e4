import Foundation

/// Every key one request is known by, and the rules for reading the caches. Two requests with
/// equal keys at a stage need the same work there, and share it. `cachedImage(for:)`, binding
/// and the prefetcher ask this type too, so they cannot disagree with the pipeline.
struct RequestKeys: Sendable {
    /// Identifies the original bytes, for the disk cache and the blocklist.
    let data: String
    /// Identifies the finished image, for the memory cache; `nil` when the pipeline keeps no
    /// decoded images in memory (a server keeps encoded ones).
    let image: ImageCacheKey?
    /// Names the encoded variant under ``data`` in the disk cache; `nil` when the request
    /// decodes the original at full size with no processors.
    let variant: String?
    /// Identifies a fetch of the bytes: cache behaviour and headers change its outcome.
    let dataWork: DataWorkKey
    /// Identifies a decode: the fetch plus how it is decoded.
    let decodeWork: DecodeWorkKey
    /// Identifies a whole load: the decode, every processor, and what the caches may answer.
    let imageWork: ImageWorkKey
    /// The source policies the load obeys: the pipeline's and the request's.
    let sources: SourceRules
    /// Whether the original bytes go to the disk cache.
    let keepsOriginal: Bool
    /// Whether the encoded variant goes to the disk cache (and may be read from it).
    let keepsVariant: Bool
    /// Whether encoded output goes to the disk cache (and may be read from it): the policy
    /// that keeps processed variants keeps it, for a request without processors too.
    let keepsEncoded: Bool
    private let processors: [String]
    private let firstFrameOnly: Bool

    init(_ request: ImageRequest, configuration: ImagePipeline.Configuration) {
        data = configuration.cacheKey(request.url)
        processors = request.processors.map(\.identifier)
        firstFrameOnly = request.options.contains(.firstFrameOnly)
        image = configuration.memoryCache == nil && configuration.imageCache == nil ? nil : ImageCacheKey(
            dataKey: data, thumbnail: request.thumbnail, processors: processors, firstFrameOnly: firstFrameOnly,
            sourcePolicy: request.sourcePolicy, vectorDPI: request.vectorDPI, keepsHighDepth: request.options.contains(.keepsHighDepth))
        assert(image == nil || image == Self.memoryKey(for: request, cacheKey: configuration.cacheKey))
        variant = Self.variantName(for: request, processors: processors)
        let policy = request.diskCachePolicy ?? configuration.diskCachePolicy
        let stored = configuration.dataCache != nil || configuration.diskCache != nil || configuration.sharedStore != nil
        let onDisk = stored && !request.options.contains(.memoryCacheOnly)
        // What the shared store keeps is kept whatever the local policy says.
        let shared = configuration.sharedStore?.keeps
        let keepsOriginals = policy.keepsOriginals || shared?.keepsOriginals == true
        let keepsVariants = policy.keepsVariants || shared?.keepsVariants == true
        keepsOriginal = onDisk && (keepsOriginals || variant == nil)
        keepsVariant = onDisk && keepsVariants && variant != nil
        keepsEncoded = onDisk && keepsVariants
        sources = SourceRules(configuration.sourcePolicy, request: request.sourcePolicy)
        dataWork = DataWorkKey(
            data: data, url: request.url, headers: request.headers, sources: sources,
            options: request.options.intersection([.refreshCached, .memoryCacheOnly, .cacheOnly, .networkOnly, .progressivePreviews]),
            keepsOriginal: keepsOriginal)
        decodeWork = DecodeWorkKey(
            data: dataWork, target: DecodeTarget(request),
            decoding: request.options.intersection([.firstFrameOnly, .firstFrameWhenTooLarge, .keepsHighDepth]),
            vectorDPI: request.vectorDPI)
        imageWork = ImageWorkKey(
            decode: decodeWork, processors: processors, keepsVariant: keepsVariant,
            options: request.options.intersection([.returnsOriginalData]))
    }

    /// The key of the work that applies the first `count` processors.
    func processWork(upTo count: Int) -> ProcessWorkKey {
        ProcessWorkKey(decode: decodeWork, processors: Array(processors.prefix(count)))
    }

    /// The key of the work that encodes the finished image as `encoding` asks.
    func encodeWork(_ encoding: EncodingRequest) -> EncodeWorkKey {
        EncodeWorkKey(
            process: processWork(upTo: processors.count), encoding: encoding.normalized, keepsEncoded: keepsEncoded,
            stored: EncodedImageKey(data: data, variant: Self.encodedVariantName(variant, encoding: encoding, firstFrameOnly: firstFrameOnly), sources: sources))
    }

    /// The encoded output's key in the caches alone, for synchronous memory reads.
    static func storedEncoding(
        for request: ImageRequest, encoding: EncodingRequest, configuration: ImagePipeline.Configuration
    ) -> EncodedImageKey {
        let firstFrameOnly = request.options.contains(.firstFrameOnly)
        let variant = variantName(for: request, processors: request.processors.map(\.identifier))
        return EncodedImageKey(
            data: configuration.cacheKey(request.url),
            variant: encodedVariantName(variant, encoding: encoding, firstFrameOnly: firstFrameOnly),
            sources: SourceRules(configuration.sourcePolicy, request: request.sourcePolicy))
    }

    private static func encodedVariantName(_ variant: String?, encoding: EncodingRequest, firstFrameOnly: Bool) -> String {
        (variant ?? (firstFrameOnly ? "first-frame" : "original")) + "|encoded:" + encoding.name
    }

    /// The memory key alone, for synchronous cache reads that need no other key. Takes the
    /// key function alone: copying the whole configuration costs more than the rest of a hit.
    static func memoryKey(for request: ImageRequest, cacheKey: (URL) -> String) -> ImageCacheKey {
        ImageCacheKey(
            dataKey: cacheKey(request.url), thumbnail: request.thumbnail,
            processors: request.processors.isEmpty ? [] : request.processors.map(\.identifier),
            firstFrameOnly: request.options.contains(.firstFrameOnly), sourcePolicy: request.sourcePolicy, vectorDPI: request.vectorDPI,
            keepsHighDepth: request.options.contains(.keepsHighDepth))
    }

    // MARK: - Reading the caches

    /// Whether the memory cache may answer `request`.
    static func readsMemory(_ request: ImageRequest) -> Bool {
        request.options.isDisjoint(with: [.networkOnly, .refreshCached, .returnsOriginalData])
    }

    /// Whether the disk cache may answer `request` without asking the server.
    static func readsDisk(_ request: ImageRequest) -> Bool {
        request.options.isDisjoint(with: [.networkOnly, .refreshCached])
    }

    private static func variantName(for request: ImageRequest, processors: [String]) -> String? {
        let (thumbnail, vectorDPI) = (request.thumbnail, request.vectorDPI)
        let keepsHighDepth = request.options.contains(.keepsHighDepth)
        guard thumbnail != nil || !processors.isEmpty || vectorDPI != nil || keepsHighDepth else { return nil }
        var parts: [String] = request.options.contains(.firstFrameOnly) ? ["first-frame"] : []
        if let vectorDPI { parts.append("dpi=\(vectorDPI)") }
        if keepsHighDepth { parts.append("depth=16") }
        if let thumbnail {
            let mode = thumbnail.fit == .fit ? "" : "," + thumbnail.fit.rawValue
            parts.append("thumbnail=\(thumbnail.width)x\(thumbnail.height)\(mode)")
        }
        parts += processors
        return parts.joined(separator: "|")
    }
}

struct DataWorkKey: Hashable, Sendable {
    let data: String
    let url: URL
    let headers: [String: String]
    /// Loads under different source rules may not share bytes: one may refuse a redirect the
    /// other follows.
    let sources: SourceRules
    let options: ImageRequest.Options
    let keepsOriginal: Bool
}

struct DecodeWorkKey: Hashable, Sendable {
    let data: DataWorkKey
    /// The size decoded to, from the thumbnail or a first resize or layout: only requests
    /// decoding to the same target share a decode.
    let target: DecodeTarget
    /// Which frames of an animation are decoded, and whether a deeper still keeps its depth.
    let decoding: ImageRequest.Options
    let vectorDPI: Double?
}

struct ProcessWorkKey: Hashable, Sendable {
    let decode: DecodeWorkKey
    let processors: [String]
}

struct ImageWorkKey: Hashable, Sendable {
    let decode: DecodeWorkKey
    let processors: [String]
    let keepsVariant: Bool
    let options: ImageRequest.Options
}

struct EncodeWorkKey: Hashable, Sendable {
    let process: ProcessWorkKey
    let encoding: EncodingRequest
    let keepsEncoded: Bool
    let stored: EncodedImageKey
}

/// What names encoded output in the caches: the original's key, the variant's name (what is
/// made of the original and how it is encoded), and the source rules a memory entry was made
/// under.
package struct EncodedImageKey: Hashable, Sendable {
    let data: String
    /// The name the encoded output is kept under beside its original; servers derive their
    /// validators from it.
    package let variant: String
    let sources: SourceRules
}
