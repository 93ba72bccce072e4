import Foundation
import Tracing

/// The stage after the processors for requests that want bytes: answers from the encoded
/// memory cache or the encoded variant on disk, otherwise waits for the last processor (or the
/// decode), chooses the format, encodes on the decoding threads and keeps the result in both
/// caches. Keyed by the image work and the encoding, so requests for the same bytes share one
/// encode, and requests for other encodings of the same image share everything before it.
final class EncodeImage: Sendable {
    let context: PipelineContext
    let process: ProcessImage
    let decode: DecodeImage
    let stage: Stage<EncodeWorkKey, EncodedImage>

    init(context: PipelineContext, process: ProcessImage, decode: DecodeImage) {
        self.context = context
        self.process = process
        self.decode = decode
        stage = Stage(.encode, context: context)
    }

    /// Whether the request is made by a decode that encodes as it goes (`DecodeImage+Encoding`):
    /// the pipeline keeps no decoded images, the request is a thumbnail or one processor, and
    /// the work the stages would make its image with is not running already (it is joined
    /// instead): the processor's, which waits for the decode, or with none the decode's. (A
    /// decode for another processor with the same decode target is not looked for.)
    func encodesInOnePass(_ input: StageInput, key: EncodeWorkKey) -> Bool {
        let request = input.request
        guard context.memory == nil, context.configuration.decoder is VipsDecoder, (key.encoding.maximumBytes ?? 0) <= 0,
            !request.options.contains(.keepsHighDepth), request.processors.count <= 1
        else { return false }
        if request.processors.isEmpty { return !decode.stage.isRunning(input.keys.decodeWork) }
        return !process.stage.isRunning(input.keys.processWork(upTo: 1))
    }

    /// The shared work for `key`, and whether it was already running.
    func task(for input: StageInput, key: EncodeWorkKey) -> (task: SharedTask<EncodedImage>, joined: Bool) {
        let description = Stage<EncodeWorkKey, EncodedImage>.Description(
            result: {
                ["magpie.image.format": .string($0.format.rawValue), "magpie.bytes": .int64(Int64($0.data.count)), "magpie.answered.from": .string($0.source.rawValue)]
            })
        return stage.task(for: key, describing: description) { [self] shared throws(MagpieError) in
            try await encode(input, key: key, shared: shared)
        }
    }

    private func encode(_ input: StageInput, key: EncodeWorkKey, shared: SharedTask<EncodedImage>) async throws(MagpieError) -> EncodedImage {
        let request = input.request
        // Finished by an identical request just before this one started.
        if RequestKeys.readsMemory(request), let hit = context.encodedCache?[key.stored] { return hit.answered(from: .memory) }
        if let stored = await storedEncoding(input, key: key) { return stored }
        if encodesInOnePass(input, key: key) {
            let decoded = try await decode.task(for: input, encoding: key).value(relayingTo: shared, passing: .task)
            let original = decoded.original
            guard case .encoded(let bytes, let format, _, _, let validator) = decoded.made else {
                // Its header unread: the stages make it from the same bytes, and report why not.
                var input = input
                input.original = LoadedData(bytes: original.bytes, metadata: original.metadata, source: original.source, timings: decoded.timings)
                return try await encodedByTheStages(input, key: key, shared: shared)
            }
            return finished(
                bytes, format: format, validator: validator, from: original.source, metadata: original.metadata, timings: decoded.timings, key: key)
        }
        return try await encodedByTheStages(input, key: key, shared: shared)
    }

    /// Waits for the last processor (or the decode) and encodes its image.
    private func encodedByTheStages(_ input: StageInput, key: EncodeWorkKey, shared: SharedTask<EncodedImage>) async throws(MagpieError) -> EncodedImage {
        let request = input.request
        let made = try await process.task(for: input, upTo: request.processors.count).value(relayingTo: shared, passing: .task)
        let image = made.container.image
        let format = key.encoding.format(for: image, source: made.container.format)
        let encoding = key.encoding
        let original = made.container.data ?? [], metadata = made.metadata
        // Without the origin's validator the original is hashed, a tenth of a second for 64 MB:
        // on the decoding threads, with the encode, never on Swift's cooperative threads.
        let (bytes, validator) = try await context.decodingPool.run { () throws(MagpieError) in
            (try encoding.encode(image, as: format), EncodedImage.validator(of: original, metadata: metadata))
        }
        return finished(bytes, format: format, validator: validator, from: made.source, metadata: made.metadata, timings: made.timings, key: key)
    }

    /// The encoded image, kept in the caches.
    func finished(
        _ bytes: [UInt8], format: ImageFormat, validator: String, from source: ImageSource, metadata: HTTPMetadata?, timings: StageTimings, key: EncodeWorkKey
    ) -> EncodedImage {
        var encoded = EncodedImage(
            data: bytes, format: format, source: source, cache: nil, sourceValidator: validator,
            sourceLastModified: metadata?.lastModified, sourceCacheControl: metadata?.cacheControl,
            encodedAt: context.configuration.wallClock())
        encoded.timings = timings
        keep(encoded, key: key, redirects: metadata?.redirects ?? [])
        return encoded
    }

    private func keep(_ encoded: EncodedImage, key: EncodeWorkKey, redirects: [URL]) {
        let maximumAge = context.configuration.encodedImageMaxAge
        context.encodedCache?.store(encoded, for: key.stored, maximumAge: maximumAge)
        guard key.keepsEncoded, let variants = context.variants else { return }
        // The entry's validators and caching are the original's, so a hit answers with the same
        // ETag; its freshness is the result's own.
        let metadata = HTTPMetadata(
            etag: encoded.sourceValidator, lastModified: encoded.sourceLastModified, contentType: encoded.format.mediaType,
            freshUntil: maximumAge.map { context.configuration.wallClock().addingTimeInterval($0.timeInterval) },
            cacheControl: encoded.sourceCacheControl, date: encoded.encodedAt, redirects: redirects)
        variants.storeVariant(encoded.data, for: key.stored.data, variant: key.stored.variant, metadata: metadata)
        context.recorder.record(.variantStored)
    }

    private func storedEncoding(_ input: StageInput, key: EncodeWorkKey) async -> EncodedImage? {
        guard key.keepsEncoded, RequestKeys.readsDisk(input.request),
            let entry = await context.storedVariant(for: key.stored.data, variant: key.stored.variant),
            let validator = entry.metadata.etag
        else { return nil }
        // Made from bytes that came through a host these rules refuse.
        if (try? input.keys.sources.check(redirects: entry.metadata.redirects, of: input.request.url)) == nil { return nil }
        var maximumAge: Duration?
        if let freshUntil = entry.metadata.freshUntil {
            let left = freshUntil.timeIntervalSince(context.configuration.wallClock())
            guard left > 0 else { return nil }
            maximumAge = .milliseconds(Int64(left * 1000))
        }
        let format = ImageFormat(sniffing: entry.data)
        guard format != .unknown else { return nil }
        let encoded = EncodedImage(
            data: entry.data, format: format, source: .disk, cache: entry.isShared ? .shared : .disk, sourceValidator: validator,
            sourceLastModified: entry.metadata.lastModified, sourceCacheControl: entry.metadata.cacheControl, encodedAt: entry.metadata.date)
        context.encodedCache?.store(encoded, for: key.stored, maximumAge: maximumAge)
        return encoded
    }
}

extension EncodedImage: StageOutput {
    var isFound: Bool { cache != nil }
}
