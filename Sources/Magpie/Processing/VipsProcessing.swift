import CMagpieVips

/// Runs one of the shim's operations on a bitmap and renders the result into a new one.
enum VipsProcessing {
    static func run(_ options: magpie_process_options, on image: DecodedImage, identifier: String) throws(MagpieError) -> DecodedImage {
        do {
            try VipsRuntime.start()
        } catch {
            throw .processingFailed(processor: identifier, reason: error.description)
        }
        var options = options
        var message = [CChar](repeating: 0, count: 512)
        let outcome = image.pixels.withUnsafeBufferPointer { pixels -> Result<DecodedImage, MagpieError> in
            // libvips reads `pixels` while rendering, so both steps happen in here.
            var result = magpie_image()
            defer { magpie_free_image(&result) }
            let status = magpie_process(
                pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.frameCount), &options, &result,
                &message, message.count)
            guard status == MAGPIE_STATUS_OK, let output = VipsDecoder.render(&result, message: &message) else {
                return .failure(.processingFailed(processor: identifier, reason: VipsDecoder.text(message)))
            }
            return .success(image.replacingPixels(output, width: Int(result.width), height: Int(result.height)))
        }
        return try outcome.get()
    }
}

extension DecodedImage {
    /// A processed image keeps what is known about its source, and its frames' timing:
    /// `pixels` holds as many frames of `width` x `height` as this image has.
    func replacingPixels(_ pixels: [UInt8], width: Int, height: Int) -> DecodedImage {
        DecodedImage(
            width: width, height: height, pixels: pixels, sourceFormat: sourceFormat, sourceWidth: sourceWidth,
            sourceHeight: sourceHeight, animation: animation, firstFrameReason: firstFrameReason, copyright: copyright)
    }
}
