import NIOConcurrencyHelpers

/// Weak references to the tasks a pipeline creates, so tests can prove that finished work is
/// released the way Nuke's tests do: every reference must become `nil` once the caller lets go.
/// Only a pipeline configured for it by a test keeps one; it costs a lock per task.
final class WorkTracker: Sendable {
    private struct Reference: Sendable {
        weak var object: (any AnyObject & Sendable)?
        let name: String
    }

    private let references = NIOLockedValueBox([Reference]())

    func track(_ object: any AnyObject & Sendable) {
        let reference = Reference(object: object, name: String(describing: type(of: object)))
        references.withLockedValue { $0.append(reference) }
    }

    /// How many objects were tracked, alive or not.
    var trackedCount: Int { references.withLockedValue { $0.count } }

    /// The type names of tracked objects that are still alive.
    var alive: [String] {
        references.withLockedValue { references in references.filter { $0.object != nil }.map(\.name) }
    }
}
