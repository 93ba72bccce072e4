/// The memory accounting files of the cgroup this process runs in (v2, or v1's memory
/// controller), found the way container runtimes lay them out: the process's path from
/// `/proc/self/cgroup`, under the mount point `/proc/self/mountinfo` gives for that hierarchy.
struct CgroupMemory: Sendable, Equatable {
    enum Version: Sendable, Equatable { case v1, v2 }

    let version: Version
    /// The cgroup's directory, e.g. `/sys/fs/cgroup/system.slice/app.service`.
    let directory: String
    /// Prefixed to every path read; a test points it at a fake tree.
    let root: String

    /// Memory in use, page cache included.
    var usageFile: String { directory + (version == .v2 ? "/memory.current" : "/memory.usage_in_bytes") }
    /// The hard limit: a number of bytes, or `max` (v2) or a huge number (v1) for none.
    var limitFile: String { directory + (version == .v2 ? "/memory.max" : "/memory.limit_in_bytes") }
    var statFile: String { directory + "/memory.stat" }
    /// The cgroup's own pressure-stall file (v2 only).
    var pressureFile: String? { version == .v2 ? directory + "/memory.pressure" : nil }

    /// Finds the process's memory cgroup, or `nil` when it has none with readable accounting.
    static func locate(root: String = "") -> CgroupMemory? {
        guard let membership = SmallFile.contents(root + "/proc/self/cgroup"),
            let mounts = SmallFile.contents(root + "/proc/self/mountinfo")
        else { return nil }
        let memberships = membership.split(separator: "\n").compactMap(Membership.init)
        let mountPoints = mounts.split(separator: "\n").compactMap(MountPoint.init)

        // A unified (v2) hierarchy counts only if the memory controller is enabled in it, which
        // its memory.current file shows; on hybrid hosts memory is still a v1 controller.
        if let member = memberships.first(where: { $0.hierarchy == "0" }),
            let mount = mountPoints.first(where: { $0.fileSystem == "cgroup2" }),
            let candidate = candidate(.v2, member: member, mount: mount, root: root),
            SmallFile.contents(candidate.usageFile) != nil
        {
            return candidate
        }
        if let member = memberships.first(where: { $0.controllers.contains("memory") }),
            let mount = mountPoints.first(where: { $0.fileSystem == "cgroup" && $0.options.contains("memory") }),
            let candidate = candidate(.v1, member: member, mount: mount, root: root),
            SmallFile.contents(candidate.usageFile) != nil
        {
            return candidate
        }
        return nil
    }

    private static func candidate(_ version: Version, member: Membership, mount: MountPoint, root: String) -> CgroupMemory? {
        // The process's path is relative to the hierarchy's root; the mount may show only part
        // of the hierarchy (a container sees its own cgroup as the mount's root).
        var relative = member.path
        if mount.root != "/" {
            guard relative.hasPrefix(mount.root) else {
                return CgroupMemory(version: version, directory: mount.point, root: root)
            }
            relative = String(relative.dropFirst(mount.root.count))
        }
        let nested = (mount.point + relative).droppingSuffix("/")
        if SmallFile.contents(root + nested + (version == .v2 ? "/memory.current" : "/memory.usage_in_bytes")) != nil {
            return CgroupMemory(version: version, directory: root + nested, root: root)
        }
        return CgroupMemory(version: version, directory: root + mount.point, root: root)
    }

    /// Memory the cgroup cannot easily give back (its usage less inactive page cache, as the
    /// kubelet and `docker stats` count it) and its limit; `nil` when there is no limit.
    func workingSet() -> (usage: Int, limit: Int)? {
        guard let limit, let usage = SmallFile.contents(usageFile)?.trimmed.flatMap({ Int($0) })
        else { return nil }
        let inactiveKey = version == .v2 ? "inactive_file" : "total_inactive_file"
        let inactive = SmallFile.contents(statFile).flatMap { Self.field(inactiveKey, in: $0) } ?? 0
        return (max(0, usage - inactive), limit)
    }

    /// The hard limit in bytes; `nil` when there is none.
    var limit: Int? {
        guard let text = SmallFile.contents(limitFile)?.trimmed, let limit = Int(text),
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

    /// A line of `/proc/self/cgroup`: `hierarchy:controllers:path`.
    private struct Membership {
        let hierarchy: Substring
        let controllers: [Substring]
        let path: String

        init?(_ line: Substring) {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { return nil }
            hierarchy = parts[0]
            controllers = parts[1].split(separator: ",")
            path = String(parts[2])
        }
    }

    /// A line of `/proc/self/mountinfo`: `id parent dev root point options [tags] - type source superoptions`.
    private struct MountPoint {
        let root: String
        let point: String
        let fileSystem: Substring
        let options: [Substring]

        init?(_ line: Substring) {
            let fields = line.split(separator: " ")
            guard fields.count >= 7, let separator = fields.firstIndex(of: "-"), separator + 1 < fields.count else {
                return nil
            }
            root = String(fields[3])
            point = String(fields[4])
            fileSystem = fields[separator + 1]
            options = separator + 3 < fields.count ? fields[separator + 3].split(separator: ",") : []
        }
    }
}

extension String {
    fileprivate func droppingSuffix(_ suffix: String) -> String {
        count > 1 && hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }

    fileprivate var trimmed: String? {
        let text = self.filter { !$0.isWhitespace }
        return text.isEmpty ? nil : text
    }
}
