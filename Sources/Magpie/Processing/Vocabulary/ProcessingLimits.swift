/// What one request may ask of the processors, stated once for every syntax that names them
/// (the proxy's option segments, `magpie fetch --process`).
public struct ProcessingLimits: Sendable, Hashable {
    /// Largest box width or height in pixels (for the proxy, after `dpr`).
    public var maximumDimension = 8192
    /// Largest output in pixels, width × height.
    public var maximumOutputPixels = 40_000_000
    /// Largest Gaussian blur sigma, in pixels before any `dpr`.
    public var maximumBlurSigma = 100.0

    /// The defaults.
    public init() {}
}
