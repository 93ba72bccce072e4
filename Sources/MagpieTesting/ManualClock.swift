public import Foundation
import NIOConcurrencyHelpers

/// Time that moves only when a test says so, for the pipeline's `clock` and `wallClock`.
///
/// ```swift
/// let clock = ManualClock()
/// var configuration = ImagePipeline.Configuration()
/// configuration.clock = clock.monotonic
/// configuration.wallClock = clock.wall
/// clock.advance(by: .seconds(301))
/// ```
public final class ManualClock: Sendable {
    private let offset = NIOLockedValueBox(Duration.zero)
    private let monotonicStart = ContinuousClock.now
    private let wallStart = Date()

    public init() {}

    /// Moves time forward.
    public func advance(by duration: Duration) {
        offset.withLockedValue { $0 += duration }
    }

    /// Monotonic now, for ``ImagePipeline/Configuration/clock``.
    public var monotonic: @Sendable () -> ContinuousClock.Instant {
        { [self] in monotonicStart + offset.withLockedValue { $0 } }
    }

    /// Wall-clock now, for ``ImagePipeline/Configuration/wallClock``.
    public var wall: @Sendable () -> Date {
        { [self] in
            let (seconds, attoseconds) = offset.withLockedValue { $0 }.components
            return wallStart.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
        }
    }
}
