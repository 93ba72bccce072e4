/// A server's order of preference among output formats, for ``EncodingRequest/Format/preferred(_:)``:
/// the formats a client accepts, in the order the operator ranks them (thumbor's
/// `AUTO_IMAGE_FORMAT_PREFERENCE`, imgproxy's `AUTO_AVIF` over `AUTO_WEBP`).
///
/// ```swift
/// // The client accepts WebP and AVIF; this server ranks WebP first and converts only stills.
/// let preference = FormatPreference(formats: [.webp, .avif], convertsAnimations: false)
/// let encoding = EncodingRequest(format: .preferred(preference), quality: 80)
/// ```
public struct FormatPreference: Sendable, Hashable {
    /// Tried in order; the first that holds the image is written. A format holds an image when
    /// this machine writes it, it keeps the image's transparency (JPEG needs an opaque image),
    /// and, for an animation, it animates.
    public var formats: [ImageFormat]
    /// Whether an animation may be written in one of ``formats``; off, an animation is written
    /// as ``otherwise`` or its source's format says (thumbor converts only stills).
    public var convertsAnimations: Bool
    /// Written when none of ``formats`` holds the image, whatever it holds (the format a URL
    /// named, which an operator's enforced format overrides); `nil` writes as
    /// ``EncodingRequest/Format/source`` does.
    public var otherwise: ImageFormat?

    /// Creates a preference.
    public init(formats: [ImageFormat], convertsAnimations: Bool = true, otherwise: ImageFormat? = nil) {
        self.formats = formats
        self.convertsAnimations = convertsAnimations
        self.otherwise = otherwise
    }

    /// The first of ``formats`` that holds `image`.
    func first(holding image: some FormatChoiceInput) -> ImageFormat? {
        if image.isAnimated && !convertsAnimations { return nil }
        return formats.first { format in
            format.isEncoderAvailable && (format.keepsAlpha || image.isOpaque) && (!image.isAnimated || format.isAnimatable)
        }
    }

    /// Names it in keys: `webp+avif`, `stills`, `else=png`.
    var name: String {
        var parts = [formats.isEmpty ? "none" : formats.map(\.rawValue).joined(separator: "+")]
        if !convertsAnimations { parts.append("stills") }
        if let otherwise { parts.append("else=\(otherwise.rawValue)") }
        return parts.joined(separator: ";")
    }
}
