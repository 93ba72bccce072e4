/// Byte strings a test can rebuild from a number alone, to check what survived a crash.
public enum TestPayloads {
    /// 1–60 kB of bytes that depend on `index`.
    public static func cacheEntry(_ index: Int) -> [UInt8] {
        let count = 1000 + (index &* 7919) % 60_000
        return (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
    }
}
