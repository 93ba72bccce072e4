public import Magpie
import NIOConcurrencyHelpers

/// A ``MemoryPressureSource`` that reports pressure when a test says so.
///
/// ```swift
/// let pressure = ManualMemoryPressure()
/// configuration.memoryPressure = pressure
/// pressure.report(MemoryPressure(reason: .other("test")))
/// ```
public final class ManualMemoryPressure: MemoryPressureSource {
    private let handlers = NIOLockedValueBox([UInt64: @Sendable (MemoryPressure) -> Void]())
    private let nextID = NIOLockedValueBox<UInt64>(0)

    /// Creates a source that reports nothing until ``report(_:)`` is called.
    public init() {}

    public func watch(_ handler: @escaping @Sendable (MemoryPressure) -> Void) -> MemoryPressureWatch {
        let id = nextID.withLockedValue { id in
            id += 1
            return id
        }
        handlers.withLockedValue { $0[id] = handler }
        return MemoryPressureWatch { [weak self] in
            _ = self?.handlers.withLockedValue { $0.removeValue(forKey: id) }
        }
    }

    /// Watches still running.
    public var watchCount: Int { handlers.withLockedValue { $0.count } }

    /// Delivers `pressure` to every running watch, synchronously.
    public func report(_ pressure: MemoryPressure = MemoryPressure(reason: .other("pressure reported by a test"))) {
        for handler in handlers.withLockedValue({ Array($0.values) }) { handler(pressure) }
    }
}
