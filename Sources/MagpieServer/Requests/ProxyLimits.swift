/// Caps on what one request may cost. Source bytes, source pixels and animation size are the
/// pipeline's limits (``ProxyConfiguration/pipeline``); these cap what a URL can ask for.
public struct ProxyLimits: Sendable, Hashable {
    /// Largest output width or height in pixels, after `dpr`.
    public var maximumDimension = 8192
    /// Largest output in pixels (width × height), after `dpr`.
    public var maximumOutputPixels = 40_000_000

    public init() {}
}
