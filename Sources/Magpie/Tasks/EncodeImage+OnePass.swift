import CMagpieVips
import Tracing

/// A request for bytes whose decoded image nobody else needs, made in one libvips pipeline from
/// the downloaded bytes to the encoded ones, as imgproxy makes every answer: the decode, the
/// processors and the encode each rendered a bitmap of their own, which for a 256 px thumbnail
/// of a 3 MP JPEG cost about a millisecond more of a 12 ms request (issue 38, BENCHMARKS.md).
///
/// Taken only where skipping the stages between changes nothing but the time: the pipeline
/// keeps no decoded images (the server's configuration), nobody is decoding or processing the
/// same image already (that work is joined instead), and the request is a thumbnail or a
/// layout that decodes straight to its size and at most crops. An image the shim cannot write
/// so (an animation, transparency, a format written outside libvips; see
/// `magpie_encode_prepared`) is decoded, processed and encoded here one step after another,
/// from the same downloaded bytes; an animation going to WebP or GIF with nothing left after
/// its decode is encoded frame by frame while later frames decode and resize (the path of
/// ``ImageEncoder/encode(decoding:options:as:)``, ``PipelineStatistics/encodesWhileDecoding``).
/// The bytes are the same either way (`OnePassEncodingTests`);
/// ``PipelineStatistics/onePassEncodes`` counts the requests made in one pass.
/// Requests for another encoding of the same image meanwhile decode it again.
extension EncodeImage {
    func encodesInOnePass(_ input: StageInput, key: EncodeWorkKey) -> Bool {
        let request = input.request
        guard context.memory == nil, context.configuration.decoder is VipsDecoder, (key.encoding.maximumBytes ?? 0) <= 0,
            !request.options.contains(.keepsHighDepth)
        else { return false }
        switch (request.thumbnail, request.processors.count) {
        case (let box?, 0): guard box.fit != .crop else { return false }
        case (nil, 1): guard request.processors[0] is ImageProcessors.Layout else { return false }
        default: return false
        }
        let processed = request.processors.isEmpty ? false : process.stage.isRunning(input.keys.processWork(upTo: request.processors.count))
        return !processed && !decode.stage.isRunning(input.keys.decodeWork)
    }

    func encodeInOnePass(_ input: StageInput, key: EncodeWorkKey, shared: SharedTask<EncodedImage>) async throws(MagpieError) -> EncodedImage {
        let request = input.request
        let data = try await fetch.task(for: input).value(for: shared) { event in
            if case .task = event { shared.send(event) }
        }
        let layout = request.processors.first as? ImageProcessors.Layout
        let decoding = context.decodingOptions(data.bytes, for: request, thumbnail: request.thumbnail, resizeFirst: nil, layoutFirst: layout?.layout)
        let rest = decoding.header.flatMap { header in layout.map { $0.restAfterDecode(of: header) } ?? .nothing }
        let encoding = key.encoding, decoder = context.configuration.decoder, recorder = context.recorder, bytes = data.bytes, metadata = data.metadata
        // The stages' spans in one: `magpie.decode`, under the encode's, says whether the one
        // pass held and what it wrote; processors that ran after a decode ran inside it.
        let span = InstrumentationSystem.isOff ? nil : InstrumentationSystem.tracer.startSpan(StageName.decode.spanName)
        defer { span?.end() }
        let outcome: OnePass
        do throws(MagpieError) {
            let processors = request.processors
            outcome = try await context.admitted(decoding, clock: shared.clock) { () throws(MagpieError) -> OnePass in
                try Self.make(
                    bytes, metadata: metadata, decoding: decoding, rest: rest, processors: processors, encoding: encoding, decoder: decoder,
                    recorder: recorder)
            }
        } catch {
            // A processor or the encoder failed, or the wait was cancelled.
            if error != .cancelled {
                span?.recordError(error)
                span?.setStatus(SpanStatus(code: .error, message: error.description))
            }
            throw error
        }
        switch outcome {
        case .undecodable(let error):
            span?.recordError(error)
            span?.setStatus(SpanStatus(code: .error, message: error.description))
            await context.forgetUndecodable(error, keys: input.keys)
            throw error
        case .encoded(let bytes, let format, let validator, let size, let onePass, let spent):
            if let span, span.isRecording {
                span.attributes.merge([
                    "magpie.one_pass": .bool(onePass), "magpie.image.width": .int64(Int64(size.width)), "magpie.image.height": .int64(Int64(size.height)),
                    "magpie.image.format": .string((decoding.header.map { ImageFormat(shimCode: $0.format) } ?? .unknown).rawValue),
                ])
            }
            // What the stages skipped would have timed as their own, not as the encode's.
            var timings = data.timings
            timings.merge(spent)
            shared.clock.waited(spent.durations.values.reduce(.zero, +))
            return finished(bytes, format: format, validator: validator, from: data.source, metadata: data.metadata, timings: timings, key: key)
        }
    }

    /// The one pass itself, on a decoding thread within the decode budget: the shim's one
    /// libvips pipeline where it can write the image so, otherwise the decode (with an
    /// animation encoded alongside where it can be), the processors and the encode in turn.
    private static func make(
        _ bytes: [UInt8], metadata: HTTPMetadata?, decoding: PipelineContext.Decoding, rest: ImageProcessors.Layout.RestAfterDecode?,
        processors: [any ImageProcessing], encoding: EncodingRequest, decoder: any ImageDecoding, recorder: PipelineRecorder
    ) throws(MagpieError) -> OnePass {
        let validator = EncodedImage.validator(of: bytes, metadata: metadata)
        // An animation's frames are planned at the decode: not worth preparing twice.
        if let rest, let header = decoding.header, header.pages <= 1 || !ImageFormat(shimCode: header.format).isAnimatable {
            let format = encoding.format(for: OpaqueStill(), source: ImageFormat(shimCode: header.format))
            let crop: ImageProcessors.Crop.Area? = if case .crop(let area) = rest { area } else { nil }
            let encoder = encoding.encoder(quality: encoding.quality(for: format))
            let start = ContinuousClock.now
            if let (encoded, size) = VipsDecoder().encodeInOnePass(bytes, options: decoding.options, crop: crop, encoder: encoder, as: format) {
                let took = ContinuousClock.now - start
                recorder.record(.encodedInOnePass(took))
                // The one libvips pipeline is timed as the decode: most of it is.
                var timings = StageTimings()
                timings.add(took, to: .decode)
                return .encoded(encoded, format, validator: validator, size: size, onePass: true, timings: timings)
            }
        }
        var timings = StageTimings()
        var image: DecodedImage
        var encodedAlongside: (bytes: [UInt8], format: ImageFormat)?
        var start = ContinuousClock.now
        do throws(MagpieError) {
            if rest == .nothing, let header = decoding.header, let format = Self.animationFormat(of: header, encoding: encoding) {
                let decoded = try VipsDecoder().decode(
                    bytes, options: decoding.options, encodingAlongside: (encoding.encoder(quality: encoding.quality(for: format)), format))
                image = decoded.image
                encodedAlongside = decoded.encoded.map { ($0, format) }
            } else {
                image = try decoder.decode(bytes, options: decoding.options)
            }
        } catch {
            return .undecodable(error)
        }
        let took = ContinuousClock.now - start
        timings.add(took, to: .decode)
        // The choice made before the decode holds if the image turned out as assumed
        // (an animation, not its first frame alone): then the bytes are the encoder's
        // on this image, and the layout, which the decode went straight to, has
        // nothing left to do.
        if let encodedAlongside, encoding.format(for: image, source: image.sourceFormat) == encodedAlongside.format {
            recorder.record(.encodedWhileDecoding(took))
            let size = DecodedImage.Size(width: image.width, height: image.height)
            return .encoded(encodedAlongside.bytes, encodedAlongside.format, validator: validator, size: size, onePass: false, timings: timings)
        }
        recorder.record(.decoded(took))
        for processor in processors {
            start = ContinuousClock.now
            image = try ProcessImage.run(processor, on: image)
            timings.add(ContinuousClock.now - start, to: .process)
            recorder.record(.processed(ContinuousClock.now - start))
        }
        let format = encoding.format(for: image, source: image.sourceFormat)
        let size = DecodedImage.Size(width: image.width, height: image.height)
        return .encoded(try encoding.encode(image, as: format), format, validator: validator, size: size, onePass: false, timings: timings)
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

    private enum OnePass: Sendable {
        case encoded([UInt8], ImageFormat, validator: String, size: DecodedImage.Size, onePass: Bool, timings: StageTimings)
        case undecodable(MagpieError)
    }
}
