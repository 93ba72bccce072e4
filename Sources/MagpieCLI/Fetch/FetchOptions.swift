import ArgumentParser
import Magpie

/// What `fetch --format` writes: the downloaded bytes untouched, or a format Magpie encodes.
enum OutputFormat: ExpressibleByArgument, Hashable {
    case original
    case encoded(ImageFormat)

    init?(argument: String) {
        if argument.lowercased() == "original" {
            self = .original
        } else if let format = ImageFormat(name: argument), format.isEncodable {
            self = .encoded(format)
        } else {
            return nil
        }
    }

    static var allValueStrings: [String] { ImageFormat.encodable.map(\.rawValue) + ["original"] }

    /// The encoder's format; `nil` for `original`.
    var encoded: ImageFormat? {
        if case .encoded(let format) = self { format } else { nil }
    }
}

extension Fit {
    /// Reads `--fit`.
    static func argument(_ text: String) throws -> Fit {
        guard let fit = Fit(rawValue: text.lowercased()) else {
            throw ValidationError("--fit is one of \(Fit.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
        }
        return fit
    }
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

/// `WxH` boxes such as `256x256`, each side within ``Magpie/ProcessingLimits/maximumDimension``.
enum ThumbnailBox {
    static func parse(_ text: String, fit: Fit = .fit) -> ImageRequest.Thumbnail? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let sides = 1...ProcessingList.limits.maximumDimension
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), sides.contains(width), sides.contains(height)
        else { return nil }
        return ImageRequest.Thumbnail(width: width, height: height, fit: fit)
    }
}
