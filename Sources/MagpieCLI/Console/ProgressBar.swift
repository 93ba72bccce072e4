import Foundation

/// The status line of a long command: `[████░░░░] 120/300  14.2 MB  3.10 MB/s  ETA 0:12`.
struct ProgressBar {
    var total: Int
    var done = 0
    var bytes = 0
    let started: ContinuousClock.Instant

    init(total: Int, started: ContinuousClock.Instant = .now) {
        self.total = total
        self.started = started
    }

    /// The line for the moment `now`.
    func line(now: ContinuousClock.Instant = .now, width: Int = 24) -> String {
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        let filled = min(width, Int((fraction * Double(width)).rounded(.down)))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let elapsed = (now - started).seconds
        var parts = ["[\(bar)] \(done)/\(total)", ByteCount.format(bytes)]
        if elapsed > 0.2 { parts.append(ByteCount.format(Int(Double(bytes) / elapsed)) + "/s") }
        if done > 0, done < total {
            parts.append("ETA " + Self.clock(elapsed / Double(done) * Double(total - done)))
        }
        return parts.joined(separator: "  ")
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}

extension Duration {
    /// This duration in seconds, as a floating-point number.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// This duration in milliseconds.
    var milliseconds: Double { seconds * 1000 }
}
