import CMagpieVips

/// Runs one of the shim's operations on a bitmap and renders the result into a new one.
enum VipsProcessing {
    /// One of the shim's operations (`magpie_process.h`), called with the bitmap, the result to
    /// prepare, and the buffer (and its length) for the reason it fails.
    typealias Operation = (
        _ bitmap: UnsafePointer<magpie_bitmap>, _ result: UnsafeMutablePointer<magpie_image>, _ error: UnsafeMutablePointer<CChar>,
        _ errorLength: Int
    ) -> magpie_status

    /// The processor names the failure and says whether the operation works on 16 bits a
    /// sample too (``ImageProcessing/keepsHighDepth``); otherwise an image with 16 is narrowed
    /// first.
    static func run(on image: DecodedImage, by processor: some ImageProcessing, _ operation: Operation) throws(MagpieError) -> DecodedImage {
        let image = processor.keepsHighDepth ? image : image.narrowedToEightBits()
        return try image.pixels.withUnsafeBufferPointer { pixels throws(MagpieError) in
            var bitmap = magpie_bitmap(
                pixels: pixels.baseAddress, width: Int32(image.width), height: Int32(image.height), frames: Int32(image.frameCount),
                sample_bytes: Int32(image.sampleDepth.rawValue))
            return try render(replacing: image, identifier: processor.identifier) { result, message in
                operation(&bitmap, &result, &message, message.count)
            }
        }
    }

    /// Starts libvips, lets `prepare` set up a pipeline in `result` (writing any error into
    /// `message`), renders it and gives `image` the rendered pixels. Whatever bitmaps the
    /// pipeline reads must stay alive for the whole call, so callers make it inside their
    /// pointers' scopes.
    static func render(
        replacing image: DecodedImage, identifier: @autoclosure () -> String, _ prepare: (inout magpie_image, inout [CChar]) -> magpie_status
    ) throws(MagpieError) -> DecodedImage {
        do {
            try VipsRuntime.start()
        } catch {
            throw .processingFailed(processor: identifier(), reason: error.description)
        }
        var message = [CChar](repeating: 0, count: 512)
        var result = magpie_image()
        defer { magpie_free_image(&result) }
        guard prepare(&result, &message) == MAGPIE_STATUS_OK, let output = VipsDecoder.render(&result, message: &message) else {
            throw .processingFailed(processor: identifier(), reason: VipsDecoder.text(message))
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
