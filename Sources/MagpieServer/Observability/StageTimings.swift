import Foundation

/// Where one request's time went, for `Server-Timing`, the access log and the metrics.
struct StageTimings: Sendable {
    enum Stage: String, Sendable, CaseIterable {
        case queue, download, decode, process, encode
    }

    private(set) var durations: [Stage: Duration] = [:]

    mutating func add(_ duration: Duration, to stage: Stage) {
        durations[stage, default: .zero] += duration
    }

    mutating func merge(_ other: StageTimings) {
        for (stage, duration) in other.durations { add(duration, to: stage) }
    }

    /// `Server-Timing: queue;dur=0.1, download;dur=12.3, ..., total;dur=20.5` (milliseconds).
    func serverTiming(total: Duration, cache: String?) -> String {
        var entries = Stage.allCases.compactMap { stage in durations[stage].map { "\(stage.rawValue);dur=\(Self.milliseconds($0))" } }
        if let cache { entries.insert("cache;desc=\(cache)", at: 0) }
        entries.append("total;dur=\(Self.milliseconds(total))")
        return entries.joined(separator: ", ")
    }

    static func milliseconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.1f", value)
    }
}
