import CMagpieVips
import Tracing

/// What a decode asked to encode as it goes made: the encoded bytes, or the image decoded
/// (an animation whose format turned out other than assumed), or nothing, when the image cannot
/// be written so and the stages make it from the same downloaded bytes.
struct DecodedForEncoding: StageOutput {
    enum Made: Sendable {
        /// In one libvips pipeline from the bytes (`onePass`), or frame by frame as the
        /// animation decoded; with the original's validator.
        case encoded([UInt8], ImageFormat, size: DecodedImage.Size, onePass: Bool, validator: String)
        case decoded(DecodedImage)
        case notHeld
    }

    let made: Made
    /// The downloaded original the image is made from, and its format.
    let original: LoadedData
    let sourceFormat: ImageFormat
    var timings = StageTimings()
    let isFound = false

    func fact(of stage: StageName, took own: Duration) -> PipelineRecorder.Fact? {
        switch made {
        case .encoded(_, _, _, let onePass, _): onePass ? .encodedInOnePass(own) : .encodedWhileDecoding(own)
        case .decoded: .decoded(own)
        case .notHeld: nil
        }
    }

    /// What the decode span says: whether the one pass held, the size it wrote, the source's format.
    @Sendable static func spanAttributes(_ decoded: DecodedForEncoding) -> SpanAttributes {
        let (onePass, size): (Bool, DecodedImage.Size?) =
            switch decoded.made {
            case .encoded(_, _, let size, let onePass, _): (onePass, size)
            case .decoded(let image): (false, DecodedImage.Size(width: image.width, height: image.height))
            case .notHeld: (false, nil)
            }
        var attributes: SpanAttributes = ["magpie.image.format": .string(decoded.sourceFormat.rawValue), "magpie.one_pass": .bool(onePass)]
        if let size {
            attributes.merge(["magpie.image.width": .int64(Int64(size.width)), "magpie.image.height": .int64(Int64(size.height))])
        }
        return attributes
    }
}

/// The decode stage asked to encode as it decodes, for a request whose decoded image nobody
/// else needs, as imgproxy makes every answer: the decode, the processors and the encode each
/// rendered a bitmap of their own, which for a 256 px thumbnail of a 3 MP JPEG cost about a
/// millisecond more of a 12 ms request (issue 38, BENCHMARKS.md).
///
/// The encode stage asks for it (``EncodeImage``'s `encodesInOnePass`) only where skipping the
/// stages between changes nothing but the time: the pipeline keeps no decoded images (the
/// server's configuration), nobody is decoding or processing the same image already (that work
/// is joined instead), and the request is a thumbnail or a layout that decodes straight to its
/// size and at most crops. An image the shim cannot write so (transparency, a format written
/// outside libvips; see `magpie_encode_prepared`) is made by the stages from the same
/// downloaded bytes; an animation going to WebP or GIF with nothing left after its decode is
/// encoded frame by frame while later frames decode and resize (the path of
/// ``ImageEncoder/encode(decoding:options:as:)``, ``PipelineStatistics/encodesWhileDecoding``).
/// The bytes are the same either way (`OnePassEncodingTests`);
/// ``PipelineStatistics/onePassEncodes`` counts the requests made in one pass. Keyed by the
/// encoding too: requests for another encoding of the same image meanwhile decode it again.
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
        let layout = request.processors.first as? ImageProcessors.Layout
        let decoding = context.decodingOptions(data.bytes, for: request, to: input.keys.decodeWork.target)
        let rest = decoding.header == nil ? nil : layout.map { $0.restAfterDecode(to: decoding.options.target) } ?? .nothing
        let bytes = data.bytes, metadata = data.metadata
        let made = try await context.admitted(decoding, clock: shared.clock) { () -> Result<DecodedForEncoding.Made, MagpieError> in
            Self.make(bytes, metadata: metadata, decoding: decoding, rest: rest, encoding: encoding)
        }
        switch made {
        case .failure(let error):
            await context.forgetUndecodable(error, keys: input.keys)
            throw error
        case .success(let made):
            let sourceFormat = decoding.header.map { ImageFormat(shimCode: $0.format) } ?? .unknown
            return DecodedForEncoding(made: made, original: data, sourceFormat: sourceFormat, timings: data.timings)
        }
    }

    /// On a decoding thread within the decode budget: the shim's one libvips pipeline where it
    /// can write the image so; an animation decoded with its frames encoded alongside where it
    /// can be; otherwise nothing. Without the origin's validator the original is hashed (a tenth
    /// of a second for 64 MB), here too, never on Swift's cooperative threads.
    private static func make(
        _ bytes: [UInt8], metadata: HTTPMetadata?, decoding: PipelineContext.Decoding, rest: ImageProcessors.Layout.RestAfterDecode?, encoding: EncodingRequest
    ) -> Result<DecodedForEncoding.Made, MagpieError> {
        guard let header = decoding.header else { return .success(.notHeld) }
        // An animation's frames are planned at the decode: not worth preparing twice.
        if let rest, header.pages <= 1 || !ImageFormat(shimCode: header.format).isAnimatable {
            let format = encoding.format(for: OpaqueStill(), source: ImageFormat(shimCode: header.format))
            let crop: ImageProcessors.Crop.Area? = if case .crop(let area) = rest { area } else { nil }
            let encoder = encoding.encoder(quality: encoding.quality(for: format))
            guard let (encoded, size) = VipsDecoder().encodeInOnePass(bytes, options: decoding.options, crop: crop, encoder: encoder, as: format)
            else { return .success(.notHeld) }
            return .success(.encoded(encoded, format, size: size, onePass: true, validator: EncodedImage.validator(of: bytes, metadata: metadata)))
        }
        guard rest == .nothing, let format = animationFormat(of: header, encoding: encoding) else { return .success(.notHeld) }
        let decoded: VipsDecoder.Decoded
        do throws(MagpieError) {
            decoded = try VipsDecoder().decode(
                bytes, options: decoding.options, encodingAlongside: (encoding.encoder(quality: encoding.quality(for: format)), format))
        } catch {
            return .failure(error)
        }
        // The choice made before the decode holds if the image turned out as assumed (an
        // animation, not its first frame alone): then the bytes are the encoder's on this image,
        // and the layout, which the decode went straight to, has nothing left to do.
        let image = decoded.image
        if let encoded = decoded.encoded, encoding.format(for: image, source: image.sourceFormat) == format {
            let size = DecodedImage.Size(width: image.width, height: image.height)
            return .success(.encoded(encoded, format, size: size, onePass: false, validator: EncodedImage.validator(of: bytes, metadata: metadata)))
        }
        return .success(.decoded(image))
    }

    /// The format an animation in a file with `header` is written as, when the shim can encode
    /// its frames while later ones decode (WebP and GIF, `magpie_render_encoding`); assumed
    /// animated and transparent until the decode says otherwise. `nil` for a still.
    private static func animationFormat(of header: magpie_header, encoding: EncodingRequest) -> ImageFormat? {
        let source = ImageFormat(shimCode: header.format)
        guard header.pages > 1, source.isAnimatable else { return nil }
        let format = encoding.format(for: TransparentAnimation(), source: source)
        return [.webp, .gif].contains(format) ? format : nil
    }
}
