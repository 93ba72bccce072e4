extension EncodingRequest.Format {
    /// The formats whose presence in an accepted set can change a negotiated choice.
    static let negotiable: Set<ImageFormat> = [.avif, .webp]
}

extension EncodingRequest {
    /// What ``Format/source`` writes by default: the formats browsers show are kept, a drawn SVG
    /// is PNG (lossless for its flat colours and sharp edges, as thumbor writes it).
    public static let webSourceFormats: [ImageFormat: ImageFormat] = [.jpeg: .jpeg, .png: .png, .webp: .webp, .gif: .gif, .svg: .png]

    /// The format to write `image`, decoded from bytes in `source`.
    func format(for image: some FormatChoiceInput, source: ImageFormat) -> ImageFormat {
        switch format {
        case .fixed(.avif): return ImageFormat.avif.isEncoderAvailable ? .avif : .webp
        case .fixed(let format): return format
        case .negotiated(let accepted):
            // libvips writes no AVIF sequences: WebP keeps an animation moving.
            if image.isAnimated { return accepted.contains(.webp) ? .webp : .gif }
            if accepted.contains(.avif) && ImageFormat.avif.isEncoderAvailable { return .avif }
            if accepted.contains(.webp) { return .webp }
            return sourceChoice(for: image, source: source)
        case .preferred(let preference):
            return preference.first(holding: image) ?? preference.otherwise ?? sourceChoice(for: image, source: source)
        case .source:
            return sourceChoice(for: image, source: source)
        }
    }

    /// What ``sourceFormats`` names for the source, where it can hold the image (transparency a
    /// processor made in a JPEG goes to PNG); otherwise JPEG, or PNG with transparency, or GIF
    /// for an animation. With ``opaquePNGAsJPEG``, a PNG source's opaque still is JPEG.
    private func sourceChoice(for image: some FormatChoiceInput, source: ImageFormat) -> ImageFormat {
        if opaquePNGAsJPEG, source == .png, image.isOpaque, !image.isAnimated { return .jpeg }
        if let named = sourceFormats[source], named.isEncoderAvailable, named.keepsAlpha || image.isOpaque,
            named.isAnimatable || !image.isAnimated
        {
            return named
        }
        if image.isAnimated { return .gif }
        return image.isOpaque ? .jpeg : .png
    }
}

/// What the format choice reads of an image: a decoded one, or what a one-pass encode knows
/// before the pixels exist (``OpaqueStill``, ``TransparentAnimation``).
protocol FormatChoiceInput {
    var isOpaque: Bool { get }
    var isAnimated: Bool { get }
}

extension DecodedImage: FormatChoiceInput {}

/// A still without transparency, as a one-pass encode assumes and then checks.
struct OpaqueStill: FormatChoiceInput {
    var isOpaque: Bool { true }
    var isAnimated: Bool { false }
}

/// An animation, perhaps transparent, as an encode made while it decodes assumes and then checks.
struct TransparentAnimation: FormatChoiceInput {
    var isOpaque: Bool { false }
    var isAnimated: Bool { true }
}
