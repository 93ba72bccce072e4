import NIOConcurrencyHelpers

/// Shared tasks by the key of what they produce, so identical work is done once: a request
/// that arrives while the work for its key is running joins it instead of starting another.
final class TaskPool<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let tasks = NIOLockedValueBox([Key: SharedTask<Value>]())
    private let tracker: WorkTracker?

    init(tracker: WorkTracker?) {
        self.tracker = tracker
    }

    /// The running task for `key`, or a new one doing `work`. `joined` tells which.
    func task(for key: Key, work: @escaping SharedTask<Value>.Work) -> (task: SharedTask<Value>, joined: Bool) {
        tasks.withLockedValue { tasks in
            if let existing = tasks[key] { return (existing, true) }
            let task = SharedTask<Value>(work: work) { [weak self] ended in
                self?.tasks.withLockedValue { tasks in
                    if tasks[key] === ended { tasks[key] = nil }
                }
            }
            tasks[key] = task
            tracker?.track(task)
            return (task, false)
        }
    }

    /// The running task for `key`, if there is one; nothing is started.
    func running(_ key: Key) -> SharedTask<Value>? {
        tasks.withLockedValue { $0[key] }
    }

    /// Whether work for `key` is running.
    func contains(_ key: Key) -> Bool {
        tasks.withLockedValue { $0[key] != nil }
    }

    /// Tasks still running.
    var count: Int { tasks.withLockedValue { $0.count } }
}
