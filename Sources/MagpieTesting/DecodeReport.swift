/// What `MagpieProbe decode` measured for one file: one JSON line each.
public struct DecodeReport: Codable, Sendable {
    public let file: String
    public let ok: Bool
    public let error: String?
    public let milliseconds: Double
    /// Peak resident memory during the decode minus resident memory before it.
    public let peakMemoryIncrease: Int

    public init(file: String, ok: Bool, error: String?, milliseconds: Double, peakMemoryIncrease: Int) {
        self.file = file
        self.ok = ok
        self.error = error
        self.milliseconds = milliseconds
        self.peakMemoryIncrease = peakMemoryIncrease
    }
}
