/// How a request's finished image is written out as bytes: the format (fixed, the source's, or
/// chosen from what a client accepts) and the encoder's settings. Two requests with equal
/// encodings of equal images share the encoding, its memory-cache entry and its disk variant.
///
/// ```swift
/// let request = ImageRequest(url: photoURL, thumbnail: .init(width: 320, height: 320, fit: .cover))
/// let encoded = try await pipeline.encodedImage(
///     for: request, encoding: EncodingRequest(format: .negotiated(accepting: [.avif, .webp]), quality: 75))
/// response.headers.contentType = encoded.format.mediaType
/// ```
public struct EncodingRequest: Sendable, Hashable {
    /// The format to write.
    public var format: Format
    /// Quality for lossy formats, 1...100.
    public var quality: Int
    /// For JPEG: write a progressive (interlaced) file.
    public var progressive: Bool
    /// For WebP: encode losslessly (``quality`` is then ignored).
    public var lossless: Bool
    /// Quality for particular formats, over ``quality``: the format is only known once chosen.
    public var formatQuality: [ImageFormat: Int]
    /// What shows through transparent pixels in a format without alpha (JPEG).
    public var background: Colour
    /// For JPEG, WebP and AVIF: lower the quality, step by step, until the bytes fit in this
    /// many (or the quality reaches 10), as imgproxy's `max_bytes`. `nil`: no limit.
    public var maximumBytes: Int?
    /// Write the source's EXIF Copyright, the only metadata ever written (imgproxy's
    /// `keep_copyright`).
    public var keepsCopyright: Bool
    /// Write an opaque image from a PNG source as JPEG where the format would be the source's
    /// (thumbor's `AUTO_PNG_TO_JPG`): photos saved as PNG are many times larger than as JPEG.
    public var opaquePNGAsJPEG = false
    /// What ``Format/source`` writes for a source in each format (a format maps to itself to be
    /// kept); a source in a format not listed, or whose listed format cannot hold the image, is
    /// written as JPEG, or PNG with transparency, or GIF for an animation. thumbor keeps AVIF
    /// and HEIF and writes TIFF as PNG; imgproxy keeps only its preferred formats.
    public var sourceFormats = EncodingRequest.webSourceFormats

    /// Creates an encoding request.
    public init(
        format: Format = .source, quality: Int = 85, progressive: Bool = false, lossless: Bool = false,
        formatQuality: [ImageFormat: Int] = [:], background: Colour = .black, maximumBytes: Int? = nil, keepsCopyright: Bool = false
    ) {
        self.format = format
        self.quality = quality
        self.progressive = progressive
        self.lossless = lossless
        self.formatQuality = formatQuality
        self.background = background
        self.maximumBytes = maximumBytes
        self.keepsCopyright = keepsCopyright
    }

    /// The quality `format` is written at.
    public func quality(for format: ImageFormat) -> Int {
        max(1, min(100, formatQuality[format] ?? quality))
    }

    /// Which format the bytes are written in.
    public enum Format: Sendable, Hashable {
        /// What ``sourceFormats`` names for the source's format: by default its own where
        /// browsers show it (JPEG, PNG, WebP, GIF; a JPEG a processor made transparent becomes
        /// PNG), PNG for a drawn SVG, otherwise JPEG, or PNG when the image has transparency.
        case source
        /// This format; AVIF falls back to WebP where libvips has no AV1 encoder.
        case fixed(ImageFormat)
        /// The best of what a client accepts, given what the image holds: AVIF, then WebP, for a
        /// still; WebP, else GIF, for an animation; otherwise as ``source``. Only AVIF and WebP
        /// in the set change the choice, so only they enter cache keys.
        case negotiated(accepting: Set<ImageFormat>)
        /// The first of the preference's formats that holds the image, else its
        /// ``FormatPreference/otherwise``, else as ``source``. Unlike ``negotiated(accepting:)``,
        /// the order is the caller's and every format can be among them.
        case preferred(FormatPreference)
    }

    /// The settings that change the bytes, with an accepted set reduced to the formats that can
    /// change the choice: what keys and names are made of.
    var normalized: EncodingRequest {
        var copy = self
        copy.quality = max(1, min(100, quality))
        copy.formatQuality = formatQuality.mapValues { max(1, min(100, $0)) }.filter { $0.value != copy.quality }
        copy.background = Colour(red: background.red, green: background.green, blue: background.blue)
        if let maximumBytes, maximumBytes <= 0 { copy.maximumBytes = nil }
        if case .negotiated(let accepted) = format { copy.format = .negotiated(accepting: accepted.intersection(Format.negotiable)) }
        return copy
    }

    /// Names the encoding in a disk variant's name and in validators: `jpeg,q=80`,
    /// `auto:avif+webp,q=75,lossless`.
    var name: String {
        let normalized = self.normalized
        let format =
            switch normalized.format {
            case .source: "source"
            case .fixed(let format): format.rawValue
            case .negotiated(let accepted): "auto:" + accepted.map(\.rawValue).sorted().joined(separator: "+")
            case .preferred(let preference): "prefer:" + preference.name
            }
        var parts = [format, "q=\(normalized.quality)"]
        for (format, quality) in normalized.formatQuality.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            parts.append("q.\(format.rawValue)=\(quality)")
        }
        if normalized.background != .black { parts.append("background=\(normalized.background)") }
        if let maximumBytes = normalized.maximumBytes { parts.append("max=\(maximumBytes)") }
        if progressive { parts.append("progressive") }
        if lossless { parts.append("lossless") }
        if keepsCopyright { parts.append("copyright") }
        if opaquePNGAsJPEG { parts.append("png-to-jpeg") }
        if sourceFormats != Self.webSourceFormats {
            parts.append("sources=" + sourceFormats.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)>\($0.value.rawValue)" }.joined(separator: "+"))
        }
        return parts.joined(separator: ",")
    }
}

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
