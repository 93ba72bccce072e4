/// The CPU bandwidth limit of the cgroup this process runs in: `podman run --cpus`, a
/// Kubernetes container's CPU limit, a systemd service's `CPUQuota=`. Only the process's own
/// cgroup is read, as Go's runtime reads it for GOMAXPROCS: container runtimes put the limit
/// there and hide the parents.
struct CgroupCPU: Sendable, Equatable {
    let cgroup: Cgroup

    /// Finds the process's cpu cgroup, or `nil` when it has none with readable bandwidth files.
    /// Every path read is prefixed by `root`, which a test points at a fake tree.
    static func locate(root: String = "") -> CgroupCPU? {
        // cpu.max exists only where the v2 cpu controller is enabled (never in the root cgroup);
        // v1's cpu hierarchy is often mounted together with cpuacct, as "cpu,cpuacct".
        let controller = Cgroup.Controller(v1Name: "cpu", v2File: "cpu.max", v1File: "cpu.cfs_quota_us")
        return Cgroup.locate(controller, root: root).map(CgroupCPU.init)
    }

    /// The processors' worth of time the cgroup may use per period (1.5 for `--cpus 1.5`);
    /// `nil` when it has no limit.
    var quota: Double? {
        let quota: Int?, period: Int?
        switch cgroup.version {
        case .v2:
            // "max 100000" without a limit, "150000 100000" for one and a half processors.
            let fields = SmallFile.contents(cgroup.directory + "/cpu.max")?.split(whereSeparator: \.isWhitespace) ?? []
            quota = fields.count == 2 ? Int(fields[0]) : nil
            period = fields.count == 2 ? Int(fields[1]) : nil
        case .v1:
            // -1 without a limit.
            quota = SmallFile.contents(cgroup.directory + "/cpu.cfs_quota_us")?.cgroupValue.flatMap { Int($0) }
            period = SmallFile.contents(cgroup.directory + "/cpu.cfs_period_us")?.cgroupValue.flatMap { Int($0) }
        }
        guard let quota, let period, quota > 0, period > 0 else { return nil }
        return Double(quota) / Double(period)
    }
}
