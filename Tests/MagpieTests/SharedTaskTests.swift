import Foundation
@testable import Magpie
import MagpieTesting
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
            onAbandon: { _ in ended.withLockedValue { $0 += 1 } })

        let first = Task { try await shared.value(priority: .normal) }
        try await waitUntil { runs.withLockedValue { $0 } == 1 }
        first.cancel()
        await #expect(throws: MagpieError.cancelled) { try await first.value }
        #expect(ended.withLockedValue { $0 } == 1, "abandoned: its pool forgets it")

        // A subscriber that already held the task joins after everyone left.
        #expect(try await shared.value(priority: .normal) == 42)
        #expect(runs.withLockedValue { $0 } == 2)
        #expect(ended.withLockedValue { $0 } == 1, "finished: the work itself has its pool forget it")
    }

    /// A pool forgets a task as its work ends, however it ends, and when everyone leaves it; a
    /// run abandoned and then ending late must not forget the task started for its key since.
    @Test func aPoolForgetsEndedAndAbandonedWorkButNotItsSuccessor() async throws {
        let pool = TaskPool<String, Int>(tracker: nil)
        let (finished, _) = pool.task(for: "a") { _ throws(MagpieError) in 1 }
        #expect(try await finished.value(priority: .normal) == 1)
        try await waitUntil { !pool.contains("a") }
        let (failed, _) = pool.task(for: "b") { _ throws(MagpieError) in throw .cancelled }
        _ = try? await failed.value(priority: .normal)
        try await waitUntil { !pool.contains("b") }

        // Abandoned: forgotten at once, though its work is still winding down.
        let (first, second) = (Gate(), Gate())
        let firstRun = NIOLockedValueBox((started: false, ended: false))
        let (abandoned, _) = pool.task(for: "c") { _ throws(MagpieError) in
            firstRun.withLockedValue { $0.started = true }
            await first.wait()
            firstRun.withLockedValue { $0.ended = true }
            throw .cancelled
        }
        let leaving = Task { try await abandoned.value(priority: .normal) }
        try await waitUntil { firstRun.withLockedValue { $0.started } }
        leaving.cancel()
        _ = try? await leaving.value
        #expect(!pool.contains("c"))
        let (successor, joined) = pool.task(for: "c") { _ throws(MagpieError) in
            await second.wait()
            return 3
        }
        #expect(!joined)
        let waiting = Task { try await successor.value(priority: .normal) }
        // The abandoned run ends while its successor works: the successor stays the key's.
        first.open()
        try await waitUntil { firstRun.withLockedValue { $0.ended } }
        for _ in 0..<100 { await Task.yield() }
        #expect(pool.contains("c"))
        second.open()
        #expect(try await waiting.value == 3)
        try await waitUntil { !pool.contains("c") }
    }

    @Test func workThatEndsBeforeItsStartIsRecordedStillDelivers() async throws {
        // Work that returns at once can finish before start() records its task.
        for _ in 0..<200 {
            let shared = SharedTask<Int>(work: { _ throws(MagpieError) in 7 }, onAbandon: { _ in })
            #expect(try await shared.value(priority: .normal) == 7)
        }
    }

    /// What a joined request's span waits on: told once of the end, whether the work finished,
    /// failed, or was abandoned, and at once when asked after it.
    @Test func whoeverAsksIsToldOnceWhenTheWorkEnds() async throws {
        let release = Gate()
        let shared = SharedTask<Int>(work: { _ throws(MagpieError) in
            await release.wait()
            return 5
        }, onAbandon: { _ in })
        let told = NIOLockedValueBox([Result<Int, MagpieError>]())
        let waiting = Task { try await shared.value(priority: .normal) }
        shared.whenEnded { result in told.withLockedValue { $0.append(result) } }
        #expect(told.withLockedValue { $0.isEmpty }, "not before the work ends")
        release.open()
        #expect(try await waiting.value == 5)
        #expect(told.withLockedValue { $0.count } == 1 && (try? told.withLockedValue { $0[0] }.get()) == 5)
        shared.whenEnded { result in told.withLockedValue { $0.append(result) } }
        #expect(told.withLockedValue { $0.count } == 2, "asked after the end: told at once")

        let abandoned = SharedTask<Int>(work: { _ throws(MagpieError) in
            while !Task.isCancelled { await Task.yield() }
            throw .cancelled
        }, onAbandon: { _ in })
        let leaving = Task { try await abandoned.value(priority: .normal) }
        let cancelled = NIOLockedValueBox([Result<Int, MagpieError>]())
        abandoned.whenEnded { result in cancelled.withLockedValue { $0.append(result) } }
        leaving.cancel()
        _ = try? await leaving.value
        #expect(cancelled.withLockedValue { $0.count } == 1)
        #expect(cancelled.withLockedValue { $0.first.map { if case .failure(.cancelled) = $0 { true } else { false } } } == true)
    }
}
