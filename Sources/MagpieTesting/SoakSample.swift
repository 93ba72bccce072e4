/// What `MagpieProbe soak` reports after each batch of loads: one JSON line each.
public struct SoakSample: Codable, Sendable {
    /// Loads finished so far.
    public let loads: Int
    /// Loads that failed so far.
    public let failures: Int
    /// Resident memory now, in bytes.
    public let resident: Int
    /// Peak resident memory so far, in bytes.
    public let peak: Int
    /// Bytes of decoded images the memory cache holds now.
    public let memoryCacheCost: Int

    public init(loads: Int, failures: Int, resident: Int, peak: Int, memoryCacheCost: Int) {
        self.loads = loads
        self.failures = failures
        self.resident = resident
        self.peak = peak
        self.memoryCacheCost = memoryCacheCost
    }
}
