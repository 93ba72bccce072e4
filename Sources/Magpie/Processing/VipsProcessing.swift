import CMagpieVips

/// Runs one of the shim's operations on a bitmap and renders the result into a new one.
enum VipsProcessing {
    /// The processor names the failure and says whether the operation works on 16 bits a
    /// sample too (``ImageProcessing/keepsHighDepth``); otherwise an image with 16 is narrowed
    /// first.
    static func run(_ options: magpie_process_options, on image: DecodedImage, by processor: some ImageProcessing) throws(MagpieError) -> DecodedImage {
        let identifier = processor.identifier
        let image = processor.keepsHighDepth ? image : image.narrowedToEightBits()
        var options = options
        options.sample_bytes = Int32(image.sampleDepth.rawValue)
        return try image.pixels.withUnsafeBufferPointer { pixels throws(MagpieError) in
            try render(replacing: image, identifier: identifier) { result, message in
                magpie_process(
                    pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.frameCount), &options, &result, &message,
                    message.count)
            }
        }
    }

    /// Starts libvips, lets `prepare` set up a pipeline in `result` (writing any error into
    /// `message`), renders it and gives `image` the rendered pixels. Whatever bitmaps the
    /// pipeline reads must stay alive for the whole call, so callers make it inside their
    /// pointers' scopes.
    static func render(
        replacing image: DecodedImage, identifier: String, _ prepare: (inout magpie_image, inout [CChar]) -> magpie_status
    ) throws(MagpieError) -> DecodedImage {
        do {
            try VipsRuntime.start()
        } catch {
            throw .processingFailed(processor: identifier, reason: error.description)
        }
        var message = [CChar](repeating: 0, count: 512)
        var result = magpie_image()
        defer { magpie_free_image(&result) }
        guard prepare(&result, &message) == MAGPIE_STATUS_OK, let output = VipsDecoder.render(&result, message: &message) else {
            throw .processingFailed(processor: identifier, reason: VipsDecoder.text(message))
        }
        return image.replacingPixels(output, width: Int(result.width), height: Int(result.height), sampleDepth: result.sample_bytes == 2 ? .sixteen : .eight)
    }
}

extension DecodedImage {
    /// A processed image keeps what is known about its source, and its frames' timing:
    /// `pixels` holds as many frames of `width` x `height` as this image has, with
    /// `sampleDepth` bits a sample.
    func replacingPixels(_ pixels: [UInt8], width: Int, height: Int, sampleDepth: SampleDepth = .eight) -> DecodedImage {
        DecodedImage(
            width: width, height: height, pixels: pixels, sourceFormat: sourceFormat, sourceWidth: sourceWidth,
            sourceHeight: sourceHeight, animation: animation, firstFrameReason: firstFrameReason, copyright: copyright,
            sourceOrientation: sourceOrientation, sampleDepth: sampleDepth)
    }
}
