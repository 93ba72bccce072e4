extension ImagePipeline {
    /// Loads the image a request describes and encodes it as `encoding` asks: the bytes a
    /// server sends or a job writes. The download, decode and processors are shared with every
    /// other request for the same image (encoded or not); the encoding is shared with identical
    /// requests, and kept in the encoded memory cache and, when the
    /// ``Configuration/diskCachePolicy`` keeps variants, on disk beside the original.
    ///
    /// ```swift
    /// let request = ImageRequest(url: photoURL, thumbnail: .init(width: 256, height: 256, fit: .cover))
    /// let encoded = try await pipeline.encodedImage(for: request, encoding: .init(format: .fixed(.webp), quality: 80))
    /// try Data(encoded.data).write(to: outputURL)
    /// ```
    ///
    /// Cancelling the calling task leaves the work, which stops unless another request waits for it.
    public func encodedImage(for request: ImageRequest, encoding: EncodingRequest) async throws(MagpieError) -> EncodedImage {
        try await encodedImage(for: request, encoding: encoding, onJoin: nil)
    }

    /// As above; `onJoin` is called at once, before any waiting, when the request joins identical
    /// work another request started (servers count these as they happen).
    package func encodedImage(
        for request: ImageRequest, encoding: EncodingRequest, onJoin: (@Sendable () -> Void)?
    ) async throws(MagpieError) -> EncodedImage {
        if let hit = cachedEncodedImage(for: request, encoding: encoding) {
            context.recorder.record(.finished(.memory))
            return hit
        }
        return try await encodedImage(for: prepare(request, encoding: encoding), onJoin: onJoin)
    }

    /// A request for encoded bytes with what is derived from it, its keys, worked out once: a
    /// server that has looked in memory already (``cachedEncodedImage(for:)-(EncodedImageKey)``)
    /// asks whether the work is running and then for the image with it.
    package func prepare(_ request: ImageRequest, encoding: EncodingRequest) -> PreparedEncoding {
        let keys = RequestKeys(request, configuration: configuration)
        return PreparedEncoding(request: request, keys: keys, work: keys.encodeWork(encoding))
    }

    /// `request` prepared again in place of `earlier` (a mark fetched since changed its
    /// processors), keeping the original `earlier` holds when the source is the same.
    package func prepare(_ request: ImageRequest, encoding: EncodingRequest, replacing earlier: PreparedEncoding) -> PreparedEncoding {
        var prepared = prepare(request, encoding: encoding)
        if prepared.keys.dataWork == earlier.keys.dataWork { prepared.original = earlier.original }
        return prepared
    }

    /// The encoded image of a prepared request, without looking in memory first (the caller
    /// did; the work looks again only when it starts, for a result finished meanwhile).
    package func encodedImage(for prepared: PreparedEncoding, onJoin: (@Sendable () -> Void)?) async throws(MagpieError) -> EncodedImage {
        do {
            let input = StageInput(request: prepared.request, keys: prepared.keys, arrival: context.scheduler.arrival(), original: prepared.original)
            try context.validate(input)
            let (task, joined) = encodeStage.task(for: input, key: prepared.work)
            if joined { onJoin?() }
            let encoded = try await task.value(priority: prepared.request.priority)
            context.recorder.record(.finished(encoded.source))
            return encoded
        } catch {
            context.recorder.record(error == .cancelled ? .cancelled : .failed)
            throw error
        }
    }

    /// The encoded image in memory for `request` and `encoding`, without waiting and without I/O.
    public func cachedEncodedImage(for request: ImageRequest, encoding: EncodingRequest) -> EncodedImage? {
        guard RequestKeys.readsMemory(request) else { return nil }
        return cachedEncodedImage(for: configuration.encodedImageKey(for: request, encoding: encoding))
    }

    /// The encoded image in memory under `key` (``Configuration/encodedImageKey(for:encoding:)``),
    /// for servers that need the key for their validators too and derive it once.
    package func cachedEncodedImage(for key: EncodedImageKey) -> EncodedImage? {
        context.encodedCache?[key]?.answered(from: .memory)
    }

    /// Whether work for exactly this request and encoding is running now, so a new request for
    /// it would join instead of starting its own.
    package func isEncoding(_ request: ImageRequest, encoding: EncodingRequest) -> Bool {
        isEncoding(prepare(request, encoding: encoding))
    }

    package func isEncoding(_ prepared: PreparedEncoding) -> Bool {
        encodeStage.stage.isRunning(prepared.work)
    }

    /// Waits for the original of `prepared` when its download (or disk read) is running now,
    /// joining it without starting any work, and keeps it in `prepared`, whose image is then
    /// made from it: a server admits its requests one slot at a time, and a request queued
    /// behind others for the same source would otherwise load it again once the running load
    /// had ended (with no disk cache, once a batch of slots). Whether it waited for one.
    package func joinRunningOriginal(of prepared: inout PreparedEncoding) async -> Bool {
        let input = StageInput(request: prepared.request, keys: prepared.keys, arrival: context.scheduler.arrival())
        guard (try? context.validate(input)) != nil, let running = fetchStage.running(for: input) else { return false }
        prepared.original = try? await running.value(priority: prepared.request.priority)
        return true
    }
}

/// A request for encoded bytes and its keys (``ImagePipeline/prepare(_:encoding:)``).
package struct PreparedEncoding: Sendable {
    package let request: ImageRequest
    let keys: RequestKeys
    let work: EncodeWorkKey
    /// The original, once a running load of it was joined (``ImagePipeline/joinRunningOriginal(of:)``).
    var original: LoadedData?

    /// The result's key in the caches.
    package var storedKey: EncodedImageKey { work.stored }
    /// The original's key in the caches (``ImagePipeline/Configuration/cacheKey``).
    package var sourceKey: String { keys.data }
}

extension ImagePipeline.Configuration {
    /// The key a request's encoded output is kept under: the original's key and a variant name
    /// derived from the thumbnail, the processors' identifiers, the frames kept and every
    /// setting of the encoding.
    package func encodedImageKey(for request: ImageRequest, encoding: EncodingRequest) -> EncodedImageKey {
        RequestKeys.storedEncoding(for: request, encoding: encoding, configuration: self)
    }
}
