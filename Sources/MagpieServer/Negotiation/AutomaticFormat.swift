import Foundation
public import Magpie

/// How a grammar chooses the output format from the client's `Accept`: the formats the operator
/// turned on, in its order, each written when the client accepts it and it holds the image.
/// thumbor's `AUTO_WEBP`, `AUTO_AVIF`, `AUTO_JPG`, `AUTO_HEIF`, `AUTO_PNG` and
/// `AUTO_IMAGE_FORMAT_PREFERENCE`; imgproxy's `IMGPROXY_AUTO_*` and `IMGPROXY_ENFORCE_*`.
public struct AutomaticFormat: Sendable, Hashable {
    /// The operator's formats, most preferred first.
    public var candidates: [ImageFormat]
    /// Read `Accept` as thumbor does: `image/*` accepts every image format and `*/*` JPEG,
    /// unless the format's own type says otherwise. Off, only a format's own media type
    /// accepts it (imgproxy's reading: `image/*` is sent by browsers that cannot show AVIF).
    public var readsWildcards: Bool
    /// Whether an animation may be converted (imgproxy writes an animated WebP; thumbor converts
    /// only stills).
    public var convertsAnimations: Bool
    /// The URL's own format, written when no candidate is taken (imgproxy's enforced formats
    /// override a URL's); `nil` keeps the source's as the grammar does without a format.
    public var otherwise: ImageFormat?

    /// Creates a rule.
    public init(candidates: [ImageFormat], readsWildcards: Bool, convertsAnimations: Bool, otherwise: ImageFormat? = nil) {
        self.candidates = candidates
        self.readsWildcards = readsWildcards
        self.convertsAnimations = convertsAnimations
        self.otherwise = otherwise
    }

    /// The pipeline's preference for a request that sent `accept`.
    func preference(accept: String?) -> FormatPreference {
        let ranges = Self.mediaRanges(accept)
        return FormatPreference(
            formats: candidates.filter { accepts($0, ranges) }, convertsAnimations: convertsAnimations, otherwise: otherwise)
    }

    /// Whether `ranges` accept `format`: its own type's quality when listed (`image/jpg` too for
    /// JPEG, `image/heic` for HEIF), else, reading wildcards, `image/*`'s, and `*/*`'s for JPEG.
    private func accepts(_ format: ImageFormat, _ ranges: [String: Double]) -> Bool {
        let own: [String] =
            switch format {
            case .jpeg: ["image/jpeg", "image/jpg"]
            case .heif: ["image/heif", "image/heic"]
            default: [format.mediaType]
            }
        if let listed = own.first(where: { ranges[$0] != nil }) { return ranges[listed]! > 0 }
        guard readsWildcards else { return false }
        if let images = ranges["image/*"] { return images > 0 }
        return format == .jpeg && (ranges["*/*"] ?? 0) > 0
    }

    /// Each media range of an `Accept` header with its highest quality (`q`, 1 when absent).
    static func mediaRanges(_ header: String?) -> [String: Double] {
        var ranges: [String: Double] = [:]
        for item in (header ?? "").split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, type.contains("/") else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            ranges[type] = max(ranges[type] ?? 0, quality.isFinite ? min(max(quality, 0), 1) : 0)
        }
        return ranges
    }
}
