import CMagpieVips

/// Formats ``ImageEncoder`` writes.
public enum EncodedFormat: String, Sendable, CaseIterable {
    case png, jpeg, webp, gif

    /// The usual file name extension.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
}

/// Encodes decoded images, with libvips.
public struct ImageEncoder: Sendable {
    /// Quality for lossy formats, 1...100.
    public var quality: Int
    /// For JPEG: write a progressive (interlaced) file.
    public var progressive: Bool

    /// Creates an encoder.
    public init(quality: Int = 85, progressive: Bool = false) {
        self.quality = quality
        self.progressive = progressive
    }

    /// Encodes `image`. JPEG has no alpha, so transparent pixels are flattened onto black.
    public func encode(_ image: DecodedImage, as format: EncodedFormat) throws(MagpieError) -> [UInt8] {
        try VipsRuntime.start()
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 512)
        let name = format == .jpeg && progressive ? "jpeg-progressive" : format.rawValue
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            magpie_vips_encode(
                pixels.baseAddress, Int32(image.width), Int32(image.height), name,
                Int32(max(1, min(100, quality))), &output, &length, &message, message.count)
        }
        defer { magpie_vips_free_buffer(output) }
        guard status == MAGPIE_VIPS_OK, let output else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .encodingFailed(format: format.rawValue, reason: text)
        }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }
}
