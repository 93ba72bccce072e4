import Foundation
import NIOConcurrencyHelpers

/// Something that says when the process is short of memory, so the pipeline can empty its
/// memory cache before the kernel's OOM killer ends the process: Linux's form of the memory
/// warning that SDWebImage and Nuke answer on iOS.
///
/// ``SystemMemoryPressure`` (the default) watches the process's cgroup and the kernel's
/// pressure-stall information. Adopt the protocol to forward another signal, or call
/// ``ImagePipeline/trimMemory(reason:)`` directly.
public protocol MemoryPressureSource: Sendable {
    /// Starts watching and calls `handler` (on any thread) each time memory runs short, until
    /// the returned watch is cancelled or released.
    func watch(_ handler: @escaping @Sendable (MemoryPressure) -> Void) -> MemoryPressureWatch
}

/// One report of memory running short.
public struct MemoryPressure: Sendable, Equatable, CustomStringConvertible {
    /// What showed the shortage.
    public enum Reason: Sendable, Equatable {
        /// The cgroup's memory use reached `usage` bytes of its `limit`.
        case nearLimit(usage: Int, limit: Int)
        /// Tasks stalled waiting for memory, as the kernel's pressure-stall information (PSI)
        /// reported for `file` (a cgroup's `memory.pressure` or `/proc/pressure/memory`).
        case stall(file: String)
        /// Another signal, named by whoever sent it.
        case other(String)
    }

    /// What showed the shortage.
    public var reason: Reason

    /// Creates a report.
    public init(reason: Reason) {
        self.reason = reason
    }

    /// One line for logs, such as "cgroup memory at 93% of its 1.0 GB limit".
    public var description: String {
        switch reason {
        case .nearLimit(let usage, let limit):
            let percent = limit > 0 ? usage * 100 / limit : 100
            return "cgroup memory at \(percent)% of its \(MemoryAmount(limit)) limit"
        case .stall(let file): return "tasks stalled waiting for memory (\(file))"
        case .other(let text): return text
        }
    }
}

/// A running watch of a ``MemoryPressureSource``; cancelling or releasing it stops the watch.
public final class MemoryPressureWatch: Sendable {
    private let cancellation: NIOLockedValueBox<(@Sendable () -> Void)?>

    /// Creates a watch that calls `cancellation` once, when first cancelled or when released.
    public init(cancellation: @escaping @Sendable () -> Void) {
        self.cancellation = NIOLockedValueBox(cancellation)
    }

    /// Stops the watch.
    public func cancel() {
        let cancellation = cancellation.withLockedValue { cancellation in
            defer { cancellation = nil }
            return cancellation
        }
        cancellation?()
    }

    deinit { cancel() }
}

/// Bytes as a person reads them in a log line: "512 MB", "1.5 GB".
struct MemoryAmount: CustomStringConvertible {
    let bytes: Int

    init(_ bytes: Int) { self.bytes = bytes }

    var description: String {
        let megabytes = Double(bytes) / 1_048_576
        if megabytes >= 1024 { return String(format: "%.1f GB", megabytes / 1024) }
        return "\(Int(megabytes.rounded())) MB"
    }
}
