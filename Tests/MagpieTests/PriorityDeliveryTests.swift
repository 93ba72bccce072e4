import Foundation
@testable import Magpie
import MagpieTesting
import NIOConcurrencyHelpers
import Testing

@Suite("Priority delivery", .timeLimit(.minutes(1)))
struct PriorityDeliveryTests {
    /// Two deliveries cross: the one carrying the old value arrives after the newer one. The
    /// follower records a value when its call ends, and the stale call ends last, so without a
    /// second look the follower would be left at `.veryLow`.
    @Test func aStaleDeliveryThatArrivesLastIsFollowedByTheCurrentValue() {
        let follower = CrossingFollower()
        deliverPriority { follower.read() }
        #expect(follower.arrived.withLockedValue { $0 } == [.high, .veryLow, .high])
    }

    /// The load is being told the task's first priority when the task is raised (here from
    /// inside that call, as another thread could at that moment): the raise must be what the
    /// load is left with.
    @Test func aLoadIsLeftWithThePrioritySetWhileItWasToldTheOldOne() {
        let task = ImageTask(request: ImageRequest(url: URL(string: "http://example.invalid/a.png")!), arrival: 0)
        let told = NIOLockedValueBox<[ImageRequest.Priority]>([])
        let raised = NIOLockedValueBox(false)
        task.followPriority { priority in
            let raiseNow = raised.withLockedValue { raised in
                defer { raised = true }
                return !raised
            }
            if raiseNow { task.priority = .veryHigh }
            told.withLockedValue { $0.append(priority) }
        }
        #expect(told.withLockedValue { $0.last } == .veryHigh)
    }

    /// A stage reads its shared work's priority to queue at, then starts following it; a
    /// subscriber raising its priority in between must still reach the stage.
    @Test func aStageFollowingItsWorkLearnsAChangeMadeBeforeItFollowed() async throws {
        let raised = Gate()
        let followed = NIOLockedValueBox<ImageRequest.Priority?>(nil)
        let queuedAt = NIOLockedValueBox<ImageRequest.Priority?>(nil)
        let shared = SharedTask<Int>(
            work: { shared throws(MagpieError) in
                queuedAt.withLockedValue { $0 = shared.priority }
                await raised.wait()
                shared.onPriorityChange { priority in followed.withLockedValue { $0 = priority } }
                return 1
            },
            onAbandon: { _ in })
        let subscription = NIOLockedValueBox<SharedTask<Int>.Subscription?>(nil)
        let waiting = Task {
            try await shared.value(priority: .low, registered: { registered in subscription.withLockedValue { $0 = registered } })
        }
        try await waitUntil { queuedAt.withLockedValue { $0 } != nil }
        subscription.withLockedValue { $0 }?.setPriority(.high)
        raised.open()
        #expect(try await waiting.value == 1)
        #expect(queuedAt.withLockedValue { $0 } == .low)
        #expect(followed.withLockedValue { $0 } == .high)
    }
}

/// Records a value when its call ends. During the first call the priority changes and the new
/// value is delivered, as another thread would, so the first (now stale) value arrives after it.
private final class CrossingFollower: Sendable {
    let current = NIOLockedValueBox(ImageRequest.Priority.veryLow)
    let arrived = NIOLockedValueBox<[ImageRequest.Priority]>([])
    private let crossed = NIOLockedValueBox(false)

    func read() -> (priority: ImageRequest.Priority, follower: @Sendable (ImageRequest.Priority) -> Void) {
        (current.withLockedValue { $0 }, { [self] priority in receive(priority) })
    }

    private func receive(_ priority: ImageRequest.Priority) {
        let crossNow = crossed.withLockedValue { crossed in
            defer { crossed = true }
            return !crossed
        }
        if crossNow {
            current.withLockedValue { $0 = .high }
            deliverPriority { read() }
        }
        arrived.withLockedValue { $0.append(priority) }
    }
}
