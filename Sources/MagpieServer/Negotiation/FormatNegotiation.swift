import Foundation
import Magpie

/// Chooses the output format. `auto` picks AVIF, then WebP, from what the client's `Accept`
/// lists, aware of what each can hold (no AVIF for animations here; WebP keeps them moving),
/// and otherwise the source's own format; no format keeps the source's format.
struct FormatNegotiation: Sendable {
    /// What an `Accept` header allows beyond the formats every browser shows. This, not the
    /// whole header, enters the cache key, so clients that differ only in other ways share results.
    struct Accepted: Sendable, Hashable {
        var avif: Bool
        var webp: Bool

        init(avif: Bool, webp: Bool) {
            self.avif = avif
            self.webp = webp
        }

        /// Reads an `Accept` header: a type counts when listed with a quality above zero.
        init(header: String?) {
            var avif = false
            var webp = false
            for item in (header ?? "").split(separator: ",") {
                let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                guard let type = parts.first else { continue }
                let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
                guard quality > 0 else { continue }
                if type == "image/avif" { avif = true }
                if type == "image/webp" { webp = true }
            }
            self.init(avif: avif, webp: webp)
        }

        var key: String { [avif ? "avif" : nil, webp ? "webp" : nil].compactMap { $0 }.joined(separator: "+") }
    }

    /// Whether this libvips can write AVIF (it needs libheif with an AV1 encoder).
    var writesAVIF = ImageFormat.avif.isEncoderAvailable

    /// The format to write `image`, decoded from `source`, for a request asking for `requested`.
    func format(for requested: ProxyOptions.Format?, accepted: Accepted, image: DecodedImage, source: ImageFormat) -> ImageFormat {
        switch requested {
        case .fixed(.avif): return writesAVIF ? .avif : .webp
        case .fixed(let format): return format
        case .auto:
            if image.isAnimated { return accepted.webp ? .webp : .gif }
            if accepted.avif && writesAVIF { return .avif }
            if accepted.webp { return .webp }
            return sourceFormat(image: image, source: source)
        case nil:
            return sourceFormat(image: image, source: source)
        }
    }

    /// The source's format where browsers show it; JPEG or PNG (by transparency) otherwise.
    private func sourceFormat(image: DecodedImage, source: ImageFormat) -> ImageFormat {
        switch source {
        case .gif: image.isAnimated ? .gif : .png
        case .jpeg, .png, .webp: source
        default: image.isOpaque ? .jpeg : .png
        }
    }
}
