extension EncodingRequest {
    /// Encodes `image` as `format` with these settings: once, or, with ``maximumBytes`` and a
    /// lossy format, again at lower qualities until it fits. Each step takes a quarter, half or
    /// three quarters of the quality as the bytes are more than 3, 1.5 or 1 times the limit,
    /// imgproxy's steps; at quality 10 the last try is kept, fitting or not.
    package func encode(_ image: DecodedImage, as format: ImageFormat) throws(MagpieError) -> [UInt8] {
        var quality = quality(for: format)
        while true {
            let bytes = try encoder(quality: quality).encode(image, as: format)
            guard let maximumBytes, maximumBytes > 0, bytes.count > maximumBytes, Self.shrinksWithQuality(format, lossless: lossless),
                quality > 10
            else { return bytes }
            let excess = Double(bytes.count) / Double(maximumBytes)
            let factor = excess > 3 ? 0.25 : excess > 1.5 ? 0.5 : 0.75
            quality = max(1, min(quality - 1, Int((Double(quality) * factor).rounded())))
        }
    }

    /// The encoder these settings make at `quality` (``quality(for:)`` unless a byte limit
    /// lowered it).
    func encoder(quality: Int) -> ImageEncoder {
        ImageEncoder(quality: quality, progressive: progressive, lossless: lossless, background: background, keepsCopyright: keepsCopyright)
    }

    private static func shrinksWithQuality(_ format: ImageFormat, lossless: Bool) -> Bool {
        switch format {
        case .jpeg, .avif: true
        case .webp: !lossless
        default: false
        }
    }
}
