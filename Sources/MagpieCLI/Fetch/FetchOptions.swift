import ArgumentParser
import Magpie

/// What `fetch --format` writes.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case png, jpeg, webp, gif, original

    /// The encoder's format; `nil` for `original`, which writes the downloaded bytes untouched.
    var encoded: EncodedFormat? {
        switch self {
        case .png: .png
        case .jpeg: .jpeg
        case .webp: .webp
        case .gif: .gif
        case .original: nil
        }
    }
}

/// `--fit`: how a thumbnail meets its box.
enum FitMode: String, ExpressibleByArgument, CaseIterable {
    case fit, fill

    var contentMode: ImageRequest.Thumbnail.ContentMode { self == .fit ? .fit : .fill }
}

/// `--disk-policy`.
enum DiskPolicyOption: String, ExpressibleByArgument, CaseIterable {
    case originals, variants, both

    var policy: DiskCachePolicy {
        switch self {
        case .originals: .originals
        case .variants: .variants
        case .both: .originalsAndVariants
        }
    }
}

/// `WxH` boxes such as `256x256`.
enum ThumbnailBox {
    static func parse(_ text: String, mode: ImageRequest.Thumbnail.ContentMode = .fit) -> ImageRequest.Thumbnail? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
            (1...20_000).contains(width), (1...20_000).contains(height)
        else { return nil }
        return ImageRequest.Thumbnail(width: width, height: height, contentMode: mode)
    }
}

extension ImageFormat {
    /// The usual extension for bytes of this format; AVIF is told apart from other HEIF files
    /// by its brand.
    func fileExtension(for bytes: [UInt8]) -> String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        case .heif: bytes.count >= 12 && bytes[8..<12].elementsEqual("avif".utf8) ? "avif" : "heic"
        case .unknown: "bin"
        }
    }
}
