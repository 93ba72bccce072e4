import Magpie

/// The values of one option segment, read the way imgproxy reads them; every failure names the
/// segment.
struct OptionValues {
    let segment: String
    let name: String
    let values: [String]

    init(_ segment: String, separator: Unicode.Scalar = ":") {
        self.segment = segment
        let parts = ProxyPath.split(segment, at: separator)
        name = parts[0]
        values = Array(parts.dropFirst())
    }

    func failure(_ reason: String) -> ProxyURLError {
        .malformed("option '\(segment)': \(reason)")
    }

    /// Whether the `index`th value is given and not empty.
    func has(_ index: Int) -> Bool { index < values.count && !values[index].isEmpty }

    func count(_ range: ClosedRange<Int>, usage: String) throws(ProxyURLError) {
        guard range.contains(values.count) else { throw failure(usage) }
    }

    /// A boolean as Go's `strconv.ParseBool` reads it: 1, t, true, 0, f, false in any case.
    func bool(_ index: Int = 0) throws(ProxyURLError) -> Bool {
        guard index < values.count else { throw failure("\(name) takes 1 (true) or 0 (false)") }
        switch values[index].lowercased() {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw failure("'\(values[index])' is not 1 (true) or 0 (false)")
        }
    }

    /// A whole number of at least 0 and at most `limit`.
    func count(_ index: Int = 0, limit: Int) throws(ProxyURLError) -> Int {
        guard index < values.count, let value = Int(values[index]), value >= 0, value <= limit else {
            throw failure("'\(index < values.count ? values[index] : "")' is not a whole number from 0 to \(limit)")
        }
        return value
    }

    /// A finite number in `range`.
    func number(_ index: Int = 0, in range: ClosedRange<Double>, what: String) throws(ProxyURLError) -> Double {
        guard index < values.count, let value = Double(values[index]), value.isFinite, range.contains(value) else {
            throw failure("\(what) is a number from \(Self.text(range.lowerBound)) to \(Self.text(range.upperBound))")
        }
        return value
    }

    /// A number above 0 and at most `limit`.
    func positive(_ index: Int = 0, limit: Double, what: String) throws(ProxyURLError) -> Double {
        guard index < values.count, let value = Double(values[index]), value.isFinite, value > 0, value <= limit else {
            throw failure("\(what) is a number above 0 and at most \(Self.text(limit))")
        }
        return value
    }

    /// A placement from the values starting at `index`: a compass point with offsets, `sm`
    /// (or Magpie's `entropy`), or `fp:X:Y`; `allowsSmart` is false for canvases.
    func placement(from index: Int, allowsSmart: Bool = true) throws(ProxyURLError) -> Placement {
        guard index < values.count else { throw failure("a gravity is one of \(Self.gravityNames(allowsSmart))") }
        let rest = Array(values[index...])
        let type = rest[0].lowercased()
        if type == "fp" {
            guard rest.count == 3, let x = Double(rest[1]), let y = Double(rest[2]), (0...1).contains(x), (0...1).contains(y) else {
                throw failure("a focus point is fp:X:Y with X and Y from 0 to 1")
            }
            return .focusPoint(x: x, y: y)
        }
        if let smart = Self.smart[type] {
            guard allowsSmart else { throw failure("'\(type)' is a crop's gravity; here it is one of \(Self.gravityNames(false))") }
            guard rest.count == 1 else { throw failure("'\(type)' takes no offsets") }
            return .smart(smart)
        }
        guard let anchor = Self.anchors[type] else { throw failure("'\(rest[0])' is not a gravity; one of \(Self.gravityNames(allowsSmart))") }
        guard rest.count <= 3 else { throw failure("a gravity takes at most an x and a y offset") }
        var offsets = (x: 0.0, y: 0.0)
        for (position, text) in rest.dropFirst().enumerated() where !text.isEmpty {
            guard let value = Double(text), value.isFinite, abs(value) <= 100_000 else { throw failure("the offset '\(text)' is not a number") }
            if position == 0 { offsets.x = value } else { offsets.y = value }
        }
        return .anchored(anchor, x: offsets.x, y: offsets.y)
    }

    static let anchors: [String: Placement.Anchor] = [
        "ce": .centre, "no": .north, "so": .south, "ea": .east, "we": .west,
        "noea": .northEast, "nowe": .northWest, "soea": .southEast, "sowe": .southWest,
        // Magpie's own spellings, kept from before imgproxy's were read.
        "centre": .centre, "center": .centre, "north": .north, "top": .north, "south": .south, "bottom": .south,
        "east": .east, "right": .east, "west": .west, "left": .west,
    ]
    static let smart: [String: Gravity] = ["sm": .attention, "smart": .attention, "attention": .attention, "entropy": .entropy]

    private static func gravityNames(_ allowsSmart: Bool) -> String {
        (["ce", "no", "so", "ea", "we", "noea", "nowe", "soea", "sowe"] + (allowsSmart ? ["sm", "entropy"] : []) + ["fp:X:Y"])
            .joined(separator: ", ")
    }

    private static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
