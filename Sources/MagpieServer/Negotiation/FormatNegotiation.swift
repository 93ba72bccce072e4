import Foundation
import Magpie

/// What the proxy asks the pipeline to encode: `f:` names a format, `f:auto` lets the pipeline
/// choose from the client's `Accept`, and no `f:` keeps the source's format. Transparency in a
/// JPEG shows white, as imgproxy's does.
enum FormatNegotiation {
    static func encoding(
        for format: ProxyOptions.Format?, accept: String?, quality: Int, formatQuality: [ImageFormat: Int] = [:], maximumBytes: Int? = nil,
        keepsCopyright: Bool = false, opaquePNGAsJPEG: Bool = false
    ) -> EncodingRequest {
        let choice: EncodingRequest.Format =
            switch format {
            case .fixed(let format): .fixed(format)
            case .auto: .negotiated(accepting: accepted(accept))
            case .acceptedAmong(let formats): .negotiated(accepting: accepted(accept).intersection(formats))
            case nil: .source
            }
        var encoding = EncodingRequest(
            format: choice, quality: quality, formatQuality: formatQuality, background: .white, maximumBytes: maximumBytes,
            keepsCopyright: keepsCopyright)
        encoding.opaquePNGAsJPEG = opaquePNGAsJPEG
        return encoding
    }

    /// The formats Magpie writes that an `Accept` header lists with a quality above zero
    /// (`image/svg+xml` or `image/heic` there choose nothing).
    static func accepted(_ header: String?) -> Set<ImageFormat> {
        var formats: Set<ImageFormat> = []
        for item in (header ?? "").split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, type.hasPrefix("image/") else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            guard quality > 0, let format = ImageFormat.encodable.first(where: { $0.mediaType == type }) else { continue }
            formats.insert(format)
        }
        return formats
    }
}
