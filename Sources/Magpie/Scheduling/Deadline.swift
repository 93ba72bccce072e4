import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Runs work that must finish within a time limit, cancelling it when the limit passes.
///
/// The timer is a NIO scheduled task, cancelled (and freed) as soon as the work ends. A
/// sleeping child task would be simpler, but a cancelled `Task.sleep` leaves its timer queued
/// until the deadline: a proxy answering 25,000 requests a second with a 30 s timeout held
/// about 700 bytes per request, half a gigabyte, for work long finished.
package enum Deadline {
    /// `operation`'s result, and whether the limit passed (and cancelled it) first. Cancelling
    /// the calling task cancels `operation` too.
    package static func run<T: Sendable>(
        within limit: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async -> (result: Result<T, any Error>, timedOut: Bool) {
        let work = Task { try await operation() }
        let fired = NIOLockedValueBox(false)
        let timer = NIOSingletons.posixEventLoopGroup.any().scheduleTask(in: TimeAmount(limit)) {
            fired.withLockedValue { $0 = true }
            work.cancel()
        }
        let result = await withTaskCancellationHandler {
            await work.result
        } onCancel: {
            work.cancel()
        }
        timer.cancel()
        return (result, fired.withLockedValue { $0 })
    }
}
