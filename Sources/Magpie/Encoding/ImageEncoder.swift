import CMagpieVips

/// Encodes decoded images, with libvips.
public struct ImageEncoder: Sendable {
    /// Quality for lossy formats, 1...100.
    public var quality: Int
    /// For JPEG: write a progressive (interlaced) file.
    public var progressive: Bool
    /// For WebP: encode losslessly (``quality`` is then ignored).
    public var lossless: Bool
    /// For JPEG, which has no alpha: the colour transparent pixels are flattened onto.
    public var background: Colour
    /// Write the image's ``DecodedImage/copyright`` as the file's only metadata (EXIF), where
    /// the format carries EXIF.
    public var keepsCopyright: Bool
    /// For GIF: how hard libimagequant works on each palette, 1 to 10; `nil` is libvips'
    /// default. Only for images nobody looks at closely (the demo's gallery, made once): what
    /// requests are answered with keeps the default until palettes are measured (issue 54).
    package var gifEffort: Int?

    /// Creates an encoder.
    public init(quality: Int = 85, progressive: Bool = false, lossless: Bool = false, background: Colour = .black, keepsCopyright: Bool = false) {
        self.quality = quality
        self.progressive = progressive
        self.lossless = lossless
        self.background = background
        self.keepsCopyright = keepsCopyright
    }

    /// Encodes `image` in one of ``ImageFormat/encodable``. JPEG has no alpha, so transparent
    /// pixels are flattened onto ``background``. An animation is written with every frame, its delays
    /// and loop count in a format that ``ImageFormat/isAnimatable``; others get its first frame.
    /// An image with 16 bits a sample is written with 16 in PNG and TIFF, and brought to 8 for
    /// the other formats.
    public func encode(_ image: DecodedImage, as format: ImageFormat) throws(MagpieError) -> [UInt8] {
        guard format.isEncodable else {
            let names = ImageFormat.encodable.map(\.rawValue).joined(separator: ", ")
            throw .encodingFailed(format: format.rawValue, reason: "Magpie writes \(names)")
        }
        let image = format == .png || format == .tiff ? image : image.narrowedToEightBits()
        try VipsRuntime.start()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 512)
        var options = shimOptions(for: format)
        options.frames = Int32(image.frameCount)
        options.sample_bytes = Int32(image.sampleDepth.rawValue)
        options.loop = Int32(clamping: image.animation?.loopCount ?? 0)
        let delays = (image.animation?.frameDelays ?? []).map { Int32(clamping: $0) }
        let copyright = keepsCopyright ? image.copyright.map { Array($0.utf8CString) } ?? [] : []
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            delays.withUnsafeBufferPointer { delays in
                copyright.withUnsafeBufferPointer { copyright in
                    options.delays = delays.baseAddress
                    options.copyright = copyright.isEmpty ? nil : copyright.baseAddress
                    return magpie_encode(
                        pixels.baseAddress, Int32(image.width), Int32(image.height), &options, &output, &length, &message, message.count)
                }
            }
        }
        defer { magpie_free_buffer(output) }
        guard status == MAGPIE_STATUS_OK, let output else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .encodingFailed(format: format.rawValue, reason: text)
        }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    /// Decodes `data` with `options` and encodes the image as `format`: the bytes
    /// ``encode(_:as:)`` writes for ``VipsDecoder/decode(_:options:)``'s image, sooner for an
    /// animation written as WebP or GIF, whose frames are encoded while later ones are still
    /// being decoded and resized (instead of all of them after the last).
    public func encode(decoding data: [UInt8], options: DecodingOptions = DecodingOptions(), as format: ImageFormat) throws(MagpieError) -> [UInt8] {
        guard format.isEncodable else { return try encode(VipsDecoder().decode(data, options: options), as: format) }
        let decoded = try VipsDecoder().decode(data, options: options, encodingAlongside: (self, format))
        if let encoded = decoded.encoded { return encoded }
        return try encode(decoded.image, as: format)
    }

    /// The shim's options for `format` with these settings; what belongs to the image (frames,
    /// delays, loop, copyright, sample depth) is the caller's to set.
    func shimOptions(for format: ImageFormat) -> magpie_encode_options {
        var options = magpie_encode_options()
        options.format = format.shimCode
        options.quality = Int32(max(1, min(100, quality)))
        options.progressive = progressive ? 1 : 0
        options.lossless = lossless ? 1 : 0
        options.background = (Double(background.red), Double(background.green), Double(background.blue))
        options.gif_effort = Int32(max(0, min(10, gifEffort ?? 0)))
        return options
    }
}
