import CMagpieVips

/// How processed variants are written to the disk cache: JPEG (quality 90) when every pixel
/// is opaque, PNG otherwise, so transparency a processor made (rounded corners, a circle) is
/// never lost. Animations are written as animated WebP (quality 90, alpha kept), with their
/// delays and loop count.
enum VariantEncoding {
    static func encode(_ image: DecodedImage) throws(MagpieError) -> [UInt8] {
        if image.isAnimated { return try ImageEncoder(quality: 90).encode(image, as: .webp) }
        return try ImageEncoder(quality: 90).encode(image, as: image.isOpaque ? .jpeg : .png)
    }
}

extension DecodedImage {
    /// Whether every pixel of every frame is fully opaque (checked by scanning them).
    public var isOpaque: Bool {
        pixels.withUnsafeBufferPointer { magpie_is_opaque_samples($0.baseAddress, width * height * frameCount, Int32(sampleDepth.rawValue)) != 0 }
    }
}
