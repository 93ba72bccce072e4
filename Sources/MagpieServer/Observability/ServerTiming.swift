import Magpie

extension StageTimings {
    /// `Server-Timing: queue;dur=0.1, download;dur=12.3, ..., total;dur=20.5` (milliseconds).
    func serverTiming(total: Duration, cache: String?) -> String {
        // One string appended to, no list joined: every answer, memory hits included, has one.
        var value = ""
        value.reserveCapacity(32 + 24 * durations.count)
        if let cache { value += "cache;desc=" + cache + ", " }
        for stage in Stage.allCases {
            if let spent = durations[stage] { value += stage.rawValue + ";dur=" + Self.milliseconds(spent) + ", " }
        }
        value += "total;dur=" + Self.milliseconds(total)
        return value
    }

    static func milliseconds(_ duration: Duration) -> String {
        // Tenths of a millisecond in integers: this runs twice per request, and String(format:)
        // went through Foundation's formatter each time.
        let tenths = duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
