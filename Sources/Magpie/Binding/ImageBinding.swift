public import Foundation
import NIOConcurrencyHelpers

/// The state Magpie keeps for one ``ImageDisplaying`` target: which URL it shows and which
/// request is loading it.
///
/// SDWebImage hangs this state on views with associated objects, which Linux lacks. Here the
/// target holds the object instead, so the state lives exactly as long as the target: when the
/// target is deallocated, its binding goes with it and cancels the request in flight.
@MainActor
public final class ImageBinding {
    /// The URL the target was last bound to; `nil` after binding to `nil`.
    public internal(set) var url: URL?

    /// Increases with every bind; a result is shown only if its bind is still the latest.
    var generation: UInt64 = 0

    /// The request in flight. Kept in a lock box so `deinit`, which may run off the main actor,
    /// can cancel it.
    private let current = NIOLockedValueBox<ImageTask?>(nil)

    /// Removes and returns the request in flight.
    func takeTask() -> ImageTask? {
        current.withLockedValue { current in
            defer { current = nil }
            return current
        }
    }

    func setTask(_ task: ImageTask) {
        current.withLockedValue { $0 = task }
    }

    /// Forgets `task` if it is still the one in flight.
    func clearTask(_ task: ImageTask) {
        current.withLockedValue { current in
            if current === task { current = nil }
        }
    }

    /// Creates an empty binding.
    public nonisolated init() {}

    /// The priority of the request in flight, e.g. lowered while the target is scrolled off
    /// screen and raised again when it comes back. Changing it never cancels the request.
    public var priority: ImageRequest.Priority? {
        get { current.withLockedValue { $0?.priority } }
        set {
            guard let newValue, let task = current.withLockedValue({ $0 }) else { return }
            task.priority = newValue
        }
    }

    /// Whether a request is still loading for this target.
    public var isLoading: Bool { current.withLockedValue { $0 != nil } }

    deinit {
        current.withLockedValue { $0 }?.cancel()
    }
}
