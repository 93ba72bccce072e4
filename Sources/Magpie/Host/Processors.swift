import Foundation

/// How many processors this process can keep busy at once, which sizes the decoding threads
/// and the proxy's processing slots.
package enum Processors {
    /// The processors the process may run on (its CPU affinity, which
    /// `ProcessInfo.activeProcessorCount` reads), or fewer when its cgroup's CPU quota allows less
    /// (`--cpus 1` in a container, a Kubernetes CPU limit, `CPUQuota=` in a unit). Foundation
    /// does not read the quota (checked on Swift 6.3.1 in a v1 cgroup with one processor's quota
    /// on a two-processor machine: it said 2), and threads beyond the quota only take turns
    /// being throttled. Read once a process.
    package static let available = available(affinity: ProcessInfo.processInfo.activeProcessorCount, quota: CgroupCPU.locate()?.quota)

    /// `affinity` processors, or the quota rounded up if that is fewer (as Go's runtime rounds
    /// it for GOMAXPROCS, which sizes imgproxy's workers: half a processor is still one thread
    /// that runs); at least one.
    package static func available(affinity: Int, quota: Double?) -> Int {
        let processors = max(1, affinity)
        guard let quota, quota > 0 else { return processors }
        return min(processors, max(1, Int(quota.rounded(.up))))
    }
}
