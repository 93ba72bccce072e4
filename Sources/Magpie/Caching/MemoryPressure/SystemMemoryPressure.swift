import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// Memory pressure as Linux reports it, for the process's cgroup (v2 or v1) or the whole
/// machine: the default ``MemoryPressureSource``.
///
/// A thread of its own waits on two signals:
/// - a pressure-stall (PSI) trigger on the cgroup's `memory.pressure` file, or on
///   `/proc/pressure/memory` without one: the kernel wakes it when tasks stalled waiting for
///   memory for ``stallThreshold`` within a two-second window;
/// - every ``checkInterval``, the cgroup's working set (usage less inactive page cache, as the
///   kubelet counts it) against its limit: at ``usageThreshold`` of the limit or more, memory
///   is short.
///
/// Reports are at least ``minimumInterval`` apart. Where neither signal exists (no cgroup
/// limit, no PSI, not Linux) the watch does nothing.
public struct SystemMemoryPressure: MemoryPressureSource {
    /// Fraction of the cgroup's memory limit at which memory counts as short.
    public var usageThreshold: Double = 0.9
    /// How often the cgroup's usage is read.
    public var checkInterval: Duration = .seconds(1)
    /// Stall time within a two-second window that fires the PSI trigger.
    public var stallThreshold: Duration = .milliseconds(200)
    /// Least time between two reports.
    public var minimumInterval: Duration = .seconds(5)
    /// Prefixed to every /proc and /sys path; tests point it at a fake tree.
    var root = ""

    /// Creates a source with the default thresholds.
    public init() {}

    public func watch(_ handler: @escaping @Sendable (MemoryPressure) -> Void) -> MemoryPressureWatch {
        #if os(Linux)
        guard let watcher = PressureWatcher(settings: self, handler: handler) else {
            return MemoryPressureWatch {}
        }
        watcher.start()
        return MemoryPressureWatch { watcher.stop() }
        #else
        return MemoryPressureWatch {}
        #endif
    }
}

#if os(Linux)
/// The thread behind ``SystemMemoryPressure``: polls the PSI trigger with the usage check's
/// interval as the timeout, and ends at the first wake-up after ``stop()``.
private final class PressureWatcher: Sendable {
    private let settings: SystemMemoryPressure
    private let handler: @Sendable (MemoryPressure) -> Void
    private let cgroup: CgroupMemory?
    private let stallFile: String?
    private let stopped = NIOLockedValueBox(false)

    init?(settings: SystemMemoryPressure, handler: @escaping @Sendable (MemoryPressure) -> Void) {
        let cgroup = CgroupMemory.locate(root: settings.root)
        let stallFile = [cgroup?.pressureFile, settings.root + "/proc/pressure/memory"]
            .compactMap { $0 }
            .first { SmallFile.contents($0) != nil }
        guard cgroup?.workingSet() != nil || stallFile != nil else { return nil }
        self.settings = settings
        self.handler = handler
        self.cgroup = cgroup
        self.stallFile = stallFile
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "magpie-memory-pressure"
        thread.start()
    }

    /// Takes effect within one check interval; no report is made after it returns.
    func stop() {
        stopped.withLockedValue { $0 = true }
    }

    private var isStopped: Bool { stopped.withLockedValue { $0 } }

    private func run() {
        let trigger = stallFile.flatMap(openTrigger)
        defer { if let trigger { close(trigger.descriptor) } }
        var descriptors = trigger.map { [pollfd(fd: $0.descriptor, events: Int16(POLLPRI), revents: 0)] } ?? []
        let timeout = Int32(clamping: max(1, settings.checkInterval.milliseconds))
        var lastReport: ContinuousClock.Instant?

        while !isStopped {
            for index in descriptors.indices { descriptors[index].revents = 0 }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0, errno != EINTR { return }
            var pressure: MemoryPressure?
            if let trigger, let events = descriptors.first.map({ Int32($0.revents) }) {
                if events & Int32(POLLERR) != 0 {
                    descriptors.removeAll()  // The cgroup went away; the usage check goes on.
                } else if events & Int32(POLLPRI) != 0 {
                    pressure = MemoryPressure(reason: .stall(file: trigger.file))
                }
            }
            if pressure == nil, let (usage, limit) = cgroup?.workingSet(),
                Double(usage) >= Double(limit) * settings.usageThreshold
            {
                pressure = MemoryPressure(reason: .nearLimit(usage: usage, limit: limit))
            }
            guard let pressure, !isStopped else { continue }
            let now = ContinuousClock.now
            if let lastReport, now - lastReport < settings.minimumInterval { continue }
            lastReport = now
            handler(pressure)
        }
    }

    /// Registers a PSI trigger: "some" stall of the threshold within a 2 s window (the window
    /// unprivileged processes may use). `nil` where the kernel refuses, as it does without PSI
    /// or write access; the usage check still runs.
    private func openTrigger(_ file: String) -> (descriptor: Int32, file: String)? {
        let descriptor = open(file, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let microseconds = max(1, settings.stallThreshold.milliseconds * 1000)
        let text = "some \(microseconds) 2000000"
        let written = text.withCString { write(descriptor, $0, strlen($0) + 1) }
        guard written > 0 else {
            close(descriptor)
            return nil
        }
        return (descriptor, file)
    }
}
#endif

extension Duration {
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
