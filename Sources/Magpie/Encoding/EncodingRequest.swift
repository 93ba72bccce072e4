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
