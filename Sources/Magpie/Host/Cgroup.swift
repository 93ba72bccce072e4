/// The directory of one controller's cgroup for this process (memory, cpu), found the way
/// container runtimes and systemd lay them out: the process's path from `/proc/self/cgroup`,
/// under the mount point `/proc/self/mountinfo` gives for that hierarchy. A unified (v2)
/// hierarchy is used when the controller is enabled in it; on hybrid hosts (systemd's v2 tree
/// beside v1 controllers, as on this project's CI machines) the v1 hierarchy that names it.
struct Cgroup: Sendable, Equatable {
    enum Version: Sendable, Equatable { case v1, v2 }

    let version: Version
    /// The cgroup's directory, e.g. `/sys/fs/cgroup/system.slice/app.service`.
    let directory: String

    /// What tells a controller's files apart in each version: the v1 hierarchy's name in
    /// `/proc/self/cgroup` and its mount options, and a file that exists only where the
    /// controller is enabled (v2 lists every controller's files only in cgroups that have it).
    struct Controller {
        let v1Name: Substring
        let v2File: String
        let v1File: String
    }

    /// Finds the process's cgroup for `controller`, or `nil` when it has none with readable
    /// files. Every path read is prefixed by `root`, which a test points at a fake tree.
    static func locate(_ controller: Controller, root: String) -> Cgroup? {
        guard let membership = SmallFile.contents(root + "/proc/self/cgroup"),
            let mounts = SmallFile.contents(root + "/proc/self/mountinfo")
        else { return nil }
        let memberships = membership.split(separator: "\n").compactMap(Membership.init)
        let mountPoints = mounts.split(separator: "\n").compactMap(MountPoint.init)

        if let member = memberships.first(where: { $0.hierarchy == "0" }),
            let mount = mountPoints.first(where: { $0.fileSystem == "cgroup2" }),
            let found = find(.v2, file: controller.v2File, member: member, mount: mount, root: root)
        {
            return found
        }
        if let member = memberships.first(where: { $0.controllers.contains(controller.v1Name) }),
            let mount = mountPoints.first(where: { $0.fileSystem == "cgroup" && $0.options.contains(controller.v1Name) }),
            let found = find(.v1, file: controller.v1File, member: member, mount: mount, root: root)
        {
            return found
        }
        return nil
    }

    /// The process's own cgroup under `mount` if it has `file`, else the mount's root if that has
    /// it: the process's path is relative to the hierarchy's root, and the mount may show only
    /// part of the hierarchy (a container sees its own cgroup as the mount's root).
    private static func find(_ version: Version, file: String, member: Membership, mount: MountPoint, root: String) -> Cgroup? {
        var candidates = [root + mount.point]
        if mount.root == "/" || member.path.hasPrefix(mount.root) {
            let relative = mount.root == "/" ? member.path : String(member.path.dropFirst(mount.root.count))
            candidates.insert((root + mount.point + relative).droppingSuffix("/"), at: 0)
        }
        return candidates.first { SmallFile.contents($0 + "/" + file) != nil }.map { Cgroup(version: version, directory: $0) }
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

    /// The file's text without whitespace; `nil` when nothing is left.
    var cgroupValue: String? {
        let text = self.filter { !$0.isWhitespace }
        return text.isEmpty ? nil : text
    }
}
