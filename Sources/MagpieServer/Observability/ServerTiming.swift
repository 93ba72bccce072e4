import Magpie

extension StageTimings {
    /// `Server-Timing: queue;dur=0.1, download;dur=12.3, ..., total;dur=20.5` (milliseconds).
    func serverTiming(total: Duration, cache: String?) -> String {
        var entries = Stage.allCases.compactMap { stage in durations[stage].map { "\(stage.rawValue);dur=\(Self.milliseconds($0))" } }
        if let cache { entries.insert("cache;desc=\(cache)", at: 0) }
        entries.append("total;dur=\(Self.milliseconds(total))")
        return entries.joined(separator: ", ")
    }

    static func milliseconds(_ duration: Duration) -> String {
        // Tenths of a millisecond in integers: this runs twice per request, and String(format:)
        // went through Foundation's formatter each time.
        let tenths = duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
