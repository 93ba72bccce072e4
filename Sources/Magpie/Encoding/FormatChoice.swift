extension EncodingRequest.Format {
    /// The formats whose presence in an accepted set can change a negotiated choice.
    static let negotiable: Set<ImageFormat> = [.avif, .webp]

    /// The format to write `image`, decoded from bytes in `source`; with `opaquePNGAsJPEG`, a
    /// PNG source's opaque image is written as JPEG.
    func choice(for image: DecodedImage, source: ImageFormat, opaquePNGAsJPEG: Bool = false) -> ImageFormat {
        let chosen = unadjustedChoice(for: image, source: source)
        return opaquePNGAsJPEG && chosen == .png && source == .png && image.isOpaque ? .jpeg : chosen
    }

    private func unadjustedChoice(for image: DecodedImage, source: ImageFormat) -> ImageFormat {
        switch self {
        case .fixed(.avif): return ImageFormat.avif.isEncoderAvailable ? .avif : .webp
        case .fixed(let format): return format
        case .negotiated(let accepted):
            // libvips writes no AVIF sequences: WebP keeps an animation moving.
            if image.isAnimated { return accepted.contains(.webp) ? .webp : .gif }
            if accepted.contains(.avif) && ImageFormat.avif.isEncoderAvailable { return .avif }
            if accepted.contains(.webp) { return .webp }
            return Self.sourceChoice(for: image, source: source)
        case .source:
            return Self.sourceChoice(for: image, source: source)
        }
    }

    /// The source's format where browsers show it and it can hold the image (transparency a
    /// processor made in a JPEG goes to PNG); a drawn SVG is PNG, lossless for its flat colours
    /// and sharp edges, as thumbor writes it; JPEG or PNG, by transparency, otherwise.
    private static func sourceChoice(for image: DecodedImage, source: ImageFormat) -> ImageFormat {
        switch source {
        // A still GIF stays GIF, as imgproxy and thumbor keep it.
        case .gif: .gif
        case .png, .webp: source
        case .svg: .png
        default: image.isOpaque ? .jpeg : .png
        }
    }
}
