import Foundation
import Magpie

/// What the proxy asks the pipeline to encode: `f:` names a format, `f:auto` lets the pipeline
/// choose from the client's `Accept`, the operator's automatic formats choose in its order, and
/// no format writes the source's as the grammar says. Transparency in a
/// JPEG shows white, as imgproxy's does.
enum FormatNegotiation {
    static func encoding(
        for format: ProxyOptions.Format?, accept: String?, quality: Int, formatQuality: [ImageFormat: Int] = [:], maximumBytes: Int? = nil,
        keepsCopyright: Bool = false, opaquePNGAsJPEG: Bool = false, sourceFormats: [ImageFormat: ImageFormat] = EncodingRequest.webSourceFormats
    ) -> EncodingRequest {
        let choice: EncodingRequest.Format =
            switch format {
            case .fixed(let format): .fixed(format)
            case .auto: .negotiated(accepting: accepted(accept))
            case .automatic(let rule): .preferred(rule.preference(accept: accept))
            case nil: .source
            }
        var encoding = EncodingRequest(
            format: choice, quality: quality, formatQuality: formatQuality, background: .white, maximumBytes: maximumBytes,
            keepsCopyright: keepsCopyright)
        encoding.opaquePNGAsJPEG = opaquePNGAsJPEG
        encoding.sourceFormats = sourceFormats
        return encoding
    }

    /// The formats Magpie writes that an `Accept` header lists with a quality above zero
    /// (`image/svg+xml` or `image/heic` there choose nothing).
    static func accepted(_ header: String?) -> Set<ImageFormat> {
        let ranges = AutomaticFormat.mediaRanges(header)
        return Set(ImageFormat.encodable.filter { (ranges[$0.mediaType] ?? 0) > 0 })
    }
}
