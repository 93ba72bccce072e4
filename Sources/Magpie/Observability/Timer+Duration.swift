package import Metrics

package extension Metrics.Timer {
    /// Records a `Duration` (swift-metrics times in whole nanoseconds).
    func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
