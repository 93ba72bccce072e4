public import Magpie

/// What one proxy URL asks for, after its option segments and presets are read: the proxy
/// syntax's own options (size, fit, gravity, dpr, format, quality, first frame) and the
/// processors every syntax shares (``Magpie/ProcessingOption``), which ``RenderPlan`` turns
/// into one decode, processors and an encoding.
public struct ProxyOptions: Sendable, Hashable {
    /// The output format a URL asks for.
    public enum Format: Sendable, Hashable {
        /// Chosen from the client's `Accept`.
        case auto
        /// One of ``Magpie/ImageFormat/encodable``.
        case fixed(ImageFormat)

        var name: String {
            switch self {
            case .auto: "auto"
            case .fixed(let format): format.rawValue
            }
        }
    }

    /// Box width in CSS pixels (0: from the height and the aspect ratio).
    public var width = 0
    /// Box height in CSS pixels (0: from the width and the aspect ratio).
    public var height = 0
    /// How the image meets the box (`fit:`).
    public var fit = Fit.fit
    /// Which part is kept when ``Magpie/Fit/fill`` or ``Magpie/Fit/crop`` cuts the image (`g:`).
    public var gravity = Gravity.centre
    /// 1...100; `nil` uses the server's default.
    public var quality: Int?
    /// `nil` keeps the source's format where the output can be written in it.
    public var format: Format?
    /// Device pixel ratio, 1...4: the box and every length of the processors are multiplied by it.
    public var dpr = 1.0
    /// Serve the first frame of an animation as a still.
    public var firstFrame = false
    /// The shared processors asked for, by their ``Magpie/ProcessingOption/name``, with their
    /// arguments as written (in CSS pixels); a later segment replaces an earlier one.
    public var processing: [String: [String]] = [:]

    /// Options that keep the source's size and format.
    public init() {}

    /// The box in output pixels.
    var pixelWidth: Int { Int((Double(width) * dpr).rounded()) }
    var pixelHeight: Int { Int((Double(height) * dpr).rounded()) }
}
