/// The memory accounting files of the cgroup this process runs in (v2, or v1's memory
/// controller): a systemd service's `MemoryMax`, a container's memory limit.
struct CgroupMemory: Sendable, Equatable {
    typealias Version = Cgroup.Version

    let cgroup: Cgroup
    var version: Version { cgroup.version }
    /// The cgroup's directory, e.g. `/sys/fs/cgroup/system.slice/app.service`.
    var directory: String { cgroup.directory }

    /// Memory in use, page cache included.
    var usageFile: String { directory + (version == .v2 ? "/memory.current" : "/memory.usage_in_bytes") }
    /// The hard limit: a number of bytes, or `max` (v2) or a huge number (v1) for none.
    var limitFile: String { directory + (version == .v2 ? "/memory.max" : "/memory.limit_in_bytes") }
    var statFile: String { directory + "/memory.stat" }
    /// The cgroup's own pressure-stall file (v2 only).
    var pressureFile: String? { version == .v2 ? directory + "/memory.pressure" : nil }

    /// Finds the process's memory cgroup, or `nil` when it has none with readable accounting.
    /// Every path read is prefixed by `root`, which a test points at a fake tree.
    static func locate(root: String = "") -> CgroupMemory? {
        // memory.current exists only where the v2 memory controller is enabled; on hybrid
        // hosts memory is still a v1 controller.
        let controller = Cgroup.Controller(v1Name: "memory", v2File: "memory.current", v1File: "memory.usage_in_bytes")
        return Cgroup.locate(controller, root: root).map(CgroupMemory.init)
    }

    /// Memory the cgroup cannot easily give back (its usage less inactive page cache, as the
    /// kubelet and `docker stats` count it) and its limit; `nil` when there is no limit.
    func workingSet() -> (usage: Int, limit: Int)? {
        guard let limit, let usage = SmallFile.contents(usageFile)?.cgroupValue.flatMap({ Int($0) })
        else { return nil }
        let inactiveKey = version == .v2 ? "inactive_file" : "total_inactive_file"
        let inactive = SmallFile.contents(statFile).flatMap { Self.field(inactiveKey, in: $0) } ?? 0
        return (max(0, usage - inactive), limit)
    }

    /// The hard limit in bytes; `nil` when there is none.
    var limit: Int? {
        guard let text = SmallFile.contents(limitFile)?.cgroupValue, let limit = Int(text),
            limit < Int.max / 2  // v1 writes "no limit" as a number near Int64.max
        else { return nil }
        return limit
    }

    static func field(_ name: String, in stat: String) -> Int? {
        for line in stat.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, parts[0] == name { return Int(parts[1]) }
        }
        return nil
    }
}
