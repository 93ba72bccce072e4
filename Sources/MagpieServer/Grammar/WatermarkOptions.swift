public import Foundation
public import Magpie

/// The watermark a URL asks for: which mark, and how it is laid (see
/// ``Magpie/ImageProcessors/Watermark``).
public struct WatermarkOptions: Sendable, Hashable {
    /// Where the mark comes from.
    public enum Mark: Sendable, Hashable {
        /// The operator's (``ProxyConfiguration/watermark``, `IMGPROXY_WATERMARK_PATH`).
        case configured
        /// An image fetched under the same source rules as any source (imgproxy's
        /// `watermark_url`, thumbor's `watermark`).
        case url(URL)
        /// Text in Pango markup (imgproxy's `watermark_text`).
        case text(String)
    }

    public var mark = Mark.configured
    /// 0...1, times the operator's ``ProxyConfiguration/watermarkOpacity``.
    public var opacity = 1.0
    public var position = ImageProcessors.Watermark.Position.placed(.centre)
    /// Fractions of the result's width and height the mark is fitted in; 0 does not limit.
    public var scaleWidth = 0.0
    public var scaleHeight = 0.0

    public init() {}
}
