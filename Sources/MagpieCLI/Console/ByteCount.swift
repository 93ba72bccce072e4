import Foundation

/// Sizes as people write and read them: `100MB`, `1.5 GiB`, `512k`, `2048`.
enum ByteCount {
    private static let units: [(suffix: String, factor: Double)] = [
        ("kib", 1024), ("mib", 1024 * 1024), ("gib", 1024 * 1024 * 1024), ("tib", 1024 * 1024 * 1024 * 1024),
        ("kb", 1e3), ("mb", 1e6), ("gb", 1e9), ("tb", 1e12),
        ("k", 1e3), ("m", 1e6), ("g", 1e9), ("t", 1e12), ("b", 1),
    ]

    /// Parses a size; decimal units (kB = 1000) unless the binary ones (KiB = 1024) are used.
    static func parse(_ text: String) -> Int? {
        let lowered = text.lowercased().filter { $0 != " " && $0 != "_" }
        var number = Substring(lowered)
        var factor = 1.0
        if let unit = units.first(where: { lowered.hasSuffix($0.suffix) }) {
            number = number.dropLast(unit.suffix.count)
            factor = unit.factor
        }
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        let bytes = value * factor
        guard bytes < Double(Int.max) else { return nil }
        return Int(bytes.rounded())
    }

    /// Formats with decimal units and three significant digits: `812 B`, `4.20 kB`, `13.1 MB`.
    static func format(_ bytes: Int) -> String {
        guard bytes >= 1000 else { return "\(bytes) B" }
        var value = Double(bytes)
        var unit = "B"
        for next in ["kB", "MB", "GB", "TB"] where value >= 1000 {
            value /= 1000
            unit = next
        }
        let digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
        return String(format: "%.\(digits)f %@", value, unit)
    }
}
