import Foundation
@testable import Magpie
import NIOConcurrencyHelpers
import Testing

@Suite("Shared work", .timeLimit(.minutes(1)))
struct SharedTaskTests {
    /// Found by the stress test: a request picks a shared task out of its pool just as the
    /// task's last subscriber leaves. It must get the work done, not a cancellation.
    @Test func joiningAnAbandonedTaskStartsTheWorkAgain() async throws {
        let runs = NIOLockedValueBox(0)
        let ended = NIOLockedValueBox(0)
        let shared = SharedTask<Int>(
            work: { _ throws(MagpieError) in
                let run = runs.withLockedValue { runs in
                    runs += 1
                    return runs
                }
                guard run > 1 else {
                    // The first run waits until it is cancelled.
                    while !Task.isCancelled { await Task.yield() }
                    throw .cancelled
                }
                return 42
            },
            onEnd: { _ in ended.withLockedValue { $0 += 1 } })

        let first = Task { try await shared.value(priority: .normal) }
        try await waitUntil { runs.withLockedValue { $0 } == 1 }
        first.cancel()
        await #expect(throws: MagpieError.cancelled) { try await first.value }
        #expect(ended.withLockedValue { $0 } == 1, "abandoned: its pool forgets it")

        // A subscriber that already held the task joins after everyone left.
        #expect(try await shared.value(priority: .normal) == 42)
        #expect(runs.withLockedValue { $0 } == 2)
        #expect(ended.withLockedValue { $0 } == 2)
    }

    @Test func workThatEndsBeforeItsStartIsRecordedStillDelivers() async throws {
        // Work that returns at once can finish before start() records its task.
        for _ in 0..<200 {
            let shared = SharedTask<Int>(work: { _ throws(MagpieError) in 7 }, onEnd: { _ in })
            #expect(try await shared.value(priority: .normal) == 7)
        }
    }
}
