import Foundation

/// How many processors this process can keep busy at once, which sizes the decoding threads
/// and the proxy's processing slots.
package enum Processors {
    /// The processors the process may run on (its CPU affinity, which
    /// `ProcessInfo.activeProcessorCount` reads), or fewer when its cgroup's CPU quota allows less
    /// (`--cpus 1` in a container, a Kubernetes CPU limit, `CPUQuota=` in a unit): threads
    /// beyond the quota only take turns being throttled. Foundation reads the quota only at the
    /// root of the cgroup mount, which is the container's own cgroup (Swift 6.3.1 on a
    /// two-processor machine: 1 under `podman run --cpus 1`), not a service's (2 in a v1 cgroup
    /// with one processor's quota): this reads the process's own cgroup wherever it is mounted.
    /// Read once a process.
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
