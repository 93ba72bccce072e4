public import Magpie

/// What one proxy URL asks for, after its option segments and presets are read.
public struct ProxyOptions: Sendable, Hashable {
    /// How the image meets the box given by ``width`` and ``height``.
    public enum Fit: String, Sendable, Hashable, CaseIterable {
        /// The whole image inside the box, aspect ratio kept.
        case fit
        /// The image covers the box and is cropped to it at ``gravity``.
        case fill
        /// The box is cut from the image at ``gravity`` without scaling.
        case crop
    }

    /// Output formats a URL can ask for; `auto` chooses from the client's `Accept`.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        case jpeg, png, webp, avif, gif, auto
    }

    /// Box width in CSS pixels (0: from the height and the aspect ratio).
    public var width = 0
    /// Box height in CSS pixels (0: from the width and the aspect ratio).
    public var height = 0
    /// How the image meets the box (`fit:`).
    public var fit = Fit.fit
    /// Which part is kept when ``Fit/fill`` or ``Fit/crop`` cuts the image (`g:`).
    public var gravity = ImageProcessors.Gravity.centre
    /// 1...100; `nil` uses the server's default.
    public var quality: Int?
    /// `nil` keeps the source's format where the output can be written in it.
    public var format: Format?
    /// Device pixel ratio, 1...4: the box and radii are multiplied by it.
    public var dpr = 1.0
    /// Gaussian blur sigma in CSS pixels; 0 for none.
    public var blur = 0.0
    /// Corner radius in CSS pixels; 0 for square corners.
    public var cornerRadius = 0
    /// Serve the first frame of an animation as a still.
    public var firstFrame = false

    /// Options that keep the source's size and format.
    public init() {}

    /// The box in output pixels.
    var pixelWidth: Int { Int((Double(width) * dpr).rounded()) }
    var pixelHeight: Int { Int((Double(height) * dpr).rounded()) }

    /// One spelling per meaning, for cache keys and ETags: two URLs that ask for the same
    /// thing share a result.
    var canonical: String {
        var parts = ["s:\(pixelWidth):\(pixelHeight)", "fit:\(fit.rawValue)", "g:\(gravity.rawValue)"]
        if let quality { parts.append("q:\(quality)") }
        if blur > 0 { parts.append("blur:\(blur * dpr)") }
        if cornerRadius > 0 { parts.append("r:\(Int((Double(cornerRadius) * dpr).rounded()))") }
        if firstFrame { parts.append("ff") }
        return parts.joined(separator: "/")
    }
}
