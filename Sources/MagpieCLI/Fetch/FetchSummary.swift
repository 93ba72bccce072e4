import Foundation

/// The closing lines of `fetch`: counts by source, bytes, failures and latency percentiles.
struct FetchSummary {
    var results: [FetchResult] = []
    var coalesced = 0
    /// Every body byte received, including those of responses that then failed.
    var bytesReceived = 0
    var elapsed: Duration = .zero

    var succeeded: [FetchResult] { results.filter { $0.status == .ok } }
    var failed: Int { results.count - succeeded.count }

    func count(from source: String) -> Int { succeeded.filter { $0.source == source }.count }

    /// The `fraction` percentile (nearest rank) of successful loads' latency, in milliseconds.
    func latency(percentile fraction: Double) -> Double? {
        let sorted = succeeded.map(\.milliseconds).sorted()
        guard !sorted.isEmpty else { return nil }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count, max(1, rank)) - 1]
    }

    var lines: [String] {
        var lines = [
            "Loaded \(succeeded.count) of \(results.count) images in \(String(format: "%.2f", elapsed.seconds)) s",
            "  from      network \(count(from: "network")) · disk \(count(from: "disk")) · memory \(count(from: "memory")) · coalesced \(coalesced)",
            "  bytes     \(ByteCount.format(bytesReceived)) downloaded",
        ]
        if let p50 = latency(percentile: 0.5), let p95 = latency(percentile: 0.95) {
            lines.append("  latency   p50 \(String(format: "%.0f", p50)) ms · p95 \(String(format: "%.0f", p95)) ms")
        }
        lines.append("  failed    \(failed)")
        return lines
    }
}
