import CMagpieVips
import Tracing

/// What a decode asked to encode as it goes made: the encoded bytes, or nothing, when the
/// image's header could not be read and the stages make it from the same downloaded bytes.
struct DecodedForEncoding: StageOutput {
    enum Made: Sendable {
        /// The bytes, made `way`, with the original's validator.
        case encoded([UInt8], ImageFormat, size: DecodedImage.Size, way: Way, validator: String)
        case notHeld
    }

    /// How the bytes were made, all on one decoding thread within the decode's admission.
    enum Way: Sendable, Equatable {
        /// In one libvips pipeline from the bytes: no bitmap.
        case onePass
        /// An animation's frames encoded while later ones decode.
        case framesAlongside
        /// A bitmap decoded, `processorRuns` processors run on it, and encoded.
        case bitmap(processorRuns: Int)
    }

    let made: Made
    /// The downloaded original the image is made from, and its format.
    let original: LoadedData
    let sourceFormat: ImageFormat
    var timings = StageTimings()
    let isFound = false

    func fact(of stage: StageName, took own: Duration) -> PipelineRecorder.Fact? {
        switch made {
        case .encoded(_, _, _, .onePass, _): .encodedInOnePass(own)
        case .encoded(_, _, _, .framesAlongside, _): .encodedWhileDecoding(own)
        case .encoded(_, _, _, .bitmap(let runs), _): .decodedProcessedAndEncoded(own, processorRuns: runs)
        case .notHeld: nil
        }
    }

    /// What the decode span says: whether the one pass held, the size it wrote, the source's format.
    @Sendable static func spanAttributes(_ decoded: DecodedForEncoding) -> SpanAttributes {
        guard case .encoded(_, _, let size, let way, _) = decoded.made else {
            return ["magpie.image.format": .string(decoded.sourceFormat.rawValue), "magpie.one_pass": .bool(false)]
        }
        return [
            "magpie.image.format": .string(decoded.sourceFormat.rawValue), "magpie.one_pass": .bool(way == .onePass),
            "magpie.image.width": .int64(Int64(size.width)), "magpie.image.height": .int64(Int64(size.height)),
        ]
    }
}

/// The decode stage asked to make the encoded bytes itself, for a request whose decoded image
/// nobody else needs, as imgproxy makes every answer: on one decoding thread, within the
/// decode's admission, with no stage between. Each stage run costs a task, its span, its clock
/// and the events passed on; the one pass saves a bitmap too (the decode, the processors and
/// the encode each rendered their own, which for a 256 px thumbnail of a 3 MP JPEG cost about a
/// millisecond more of a 12 ms request; issue 38, BENCHMARKS.md).
///
/// The encode stage asks for it (``EncodeImage``'s `encodesInOnePass`) only where skipping the
/// stages between changes nothing but the time: the pipeline keeps no decoded images (the
/// server's configuration), the request is a thumbnail or a single processor (the servers'
/// layout), and the stages' work for the same image is not running (it is joined instead).
/// Made, in the first way that holds:
/// - in one libvips pipeline, for a still whose layout decodes straight to its size and at most
///   crops, where the shim can write it so (no transparency, a format libvips writes; see
///   `magpie_encode_prepared`), ``PipelineStatistics/onePassEncodes``;
/// - an animation going to WebP or GIF with nothing left after its decode, frame by frame while
///   later frames decode and resize (the path of ``ImageEncoder/encode(decoding:options:as:)``,
///   ``PipelineStatistics/encodesWhileDecoding``);
/// - otherwise as the stages make it: the bitmap decoded, the processor run on it, encoded.
///
/// The bytes are the stages' every way (`OnePassEncodingTests`). Keyed by the encoding too:
/// requests for another encoding of the same image meanwhile decode it again.
extension DecodeImage {
    func task(for input: StageInput, encoding key: EncodeWorkKey) -> SharedTask<DecodedForEncoding> {
        let description = Stage<EncodeWorkKey, DecodedForEncoding>.Description(result: DecodedForEncoding.spanAttributes)
        return encodingStage.task(for: key, describing: description) { [self] shared throws(MagpieError) in
            try await decode(input, encoding: key.encoding, shared: shared)
        }.task
    }

    private func decode(_ input: StageInput, encoding: EncodingRequest, shared: SharedTask<DecodedForEncoding>) async throws(MagpieError)
        -> DecodedForEncoding
    {
        let request = input.request
        let data = try await fetch.task(for: input).value(relayingTo: shared, passing: .task)
        let decoding = context.decodingOptions(data.bytes, for: request, to: input.keys.decodeWork.target)
        let processor = request.processors.first
        let rest: ImageProcessors.Layout.RestAfterDecode? =
            switch processor {
            case nil: .nothing
            case let layout as ImageProcessors.Layout: layout.restAfterDecode(to: decoding.options.target, planned: decoding.plan)
            default: nil
            }
        let bytes = data.bytes, metadata = data.metadata
        let source = decoding.header.map { ImageFormat(shimCode: $0.format) } ?? .unknown
        let made = try await context.admitted(decoding, clock: shared.clock) { () throws(MagpieError) -> Result<DecodedForEncoding.Made, MagpieError> in
            try Self.make(bytes, metadata: metadata, decoding: decoding, source: source, processor: processor, rest: rest, encoding: encoding)
        }
        switch made {
        case .failure(let error):
            await context.forgetUndecodable(error, keys: input.keys)
            throw error
        case .success(let made):
            return DecodedForEncoding(made: made, original: data, sourceFormat: source, timings: data.timings)
        }
    }

    /// On a decoding thread within the decode budget, in the first way that holds (see above),
    /// from `bytes` in the `source` format their header says.
    /// A decode's failure is returned (the bytes' fault: the original is forgotten); a
    /// processor's or the encoder's is thrown, as the stages would. Without the origin's
    /// validator the original is hashed (a tenth of a second for 64 MB), here too, never on
    /// Swift's cooperative threads.
    private static func make(
        _ bytes: [UInt8], metadata: HTTPMetadata?, decoding: PipelineContext.Decoding, source: ImageFormat, processor: (any ImageProcessing)?,
        rest: ImageProcessors.Layout.RestAfterDecode?, encoding: EncodingRequest
    ) throws(MagpieError) -> Result<DecodedForEncoding.Made, MagpieError> {
        guard let header = decoding.header else { return .success(.notHeld) }
        func made(_ encoded: [UInt8], _ format: ImageFormat, size: DecodedImage.Size, _ way: DecodedForEncoding.Way) -> DecodedForEncoding.Made {
            .encoded(encoded, format, size: size, way: way, validator: EncodedImage.validator(of: bytes, metadata: metadata))
        }
        // An animation's frames are planned at the decode: not worth preparing twice.
        if let rest, header.pages <= 1 || !source.isAnimatable {
            let format = encoding.format(for: OpaqueStill(), source: source)
            let crop: ImageProcessors.Crop.Area? = if case .crop(let area) = rest { area } else { nil }
            let encoder = encoding.encoder(quality: encoding.quality(for: format))
            if let (encoded, size) = VipsDecoder().encodeInOnePass(bytes, options: decoding.options, crop: crop, encoder: encoder, as: format) {
                return .success(made(encoded, format, size: size, .onePass))
            }
        }
        var image: DecodedImage
        do throws(MagpieError) {
            if rest == .nothing, let format = animationFormat(of: header, source: source, encoding: encoding) {
                let decoded = try VipsDecoder().decode(
                    bytes, options: decoding.options, encodingAlongside: (encoding.encoder(quality: encoding.quality(for: format)), format))
                image = decoded.image
                // The choice made before the decode holds if the image turned out as assumed (an
                // animation, not its first frame alone): then the bytes are the encoder's on this
                // image, and the layout, which the decode went straight to, has nothing left to do.
                if let encoded = decoded.encoded, encoding.format(for: image, source: image.sourceFormat) == format {
                    return .success(made(encoded, format, size: DecodedImage.Size(width: image.width, height: image.height), .framesAlongside))
                }
            } else {
                image = try VipsDecoder().decode(bytes, options: decoding.options)
            }
        } catch {
            return .failure(error)
        }
        if let processor { image = try processor.run(on: image, planned: decoding.plan) }
        let format = encoding.format(for: image, source: image.sourceFormat)
        let encoded = try encoding.encode(image, as: format)
        return .success(made(encoded, format, size: DecodedImage.Size(width: image.width, height: image.height), .bitmap(processorRuns: processor == nil ? 0 : 1)))
    }

    /// The format an animation in a `source` file with `header` is written as, when the shim
    /// can encode its frames while later ones decode (WebP and GIF, `magpie_render_encoding`);
    /// assumed animated and transparent until the decode says otherwise. `nil` for a still.
    private static func animationFormat(of header: magpie_header, source: ImageFormat, encoding: EncodingRequest) -> ImageFormat? {
        guard header.pages > 1, source.isAnimatable else { return nil }
        let format = encoding.format(for: TransparentAnimation(), source: source)
        return [.webp, .gif].contains(format) ? format : nil
    }
}
