import Foundation
@testable import Magpie
import Testing

/// The CPU quota of the process's cgroup sizes the decoding threads and the proxy's slots
/// (issue 52); the container test checks the same under podman's `--cpus 1`.
struct ProcessorsTests {
    typealias FakeRoot = CgroupMemoryTests.FakeRoot

    /// A hybrid host as podman leaves it on cgroup v1: cpu and cpuacct mounted together, and the
    /// container's own cgroup shown as the mount's root.
    static let v1Mounts = """
        36 31 0:33 /machine.slice/libpod-abc /sys/fs/cgroup/cpu,cpuacct ro,relatime - cgroup cgroup rw,cpu,cpuacct
        37 31 0:34 / /sys/fs/cgroup/cpuset ro,relatime - cgroup cgroup rw,cpuset
        41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw

        """

    @Test func aContainersV1QuotaIsItsProcessors() throws {
        let root = try FakeRoot(
            cgroup: "3:cpuset:/machine.slice/libpod-abc\n2:cpu,cpuacct:/machine.slice/libpod-abc\n0::/\n", mounts: Self.v1Mounts,
            files: [
                "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "150000\n",
                "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
            ])
        let cpu = try #require(CgroupCPU.locate(root: root.path))
        #expect(cpu.cgroup.version == .v1)
        #expect(cpu.cgroup.directory == root.path + "/sys/fs/cgroup/cpu,cpuacct")
        #expect(cpu.quota == 1.5)
        #expect(Processors.available(affinity: 8, quota: cpu.quota) == 2, "rounded up, as Go's runtime does")
    }

    @Test func aServicesV2QuotaIsReadInItsOwnCgroup() throws {
        let root = try FakeRoot(cgroup: "0::/system.slice/magpie.service\n", mounts: CgroupMemoryTests.v2Mounts, files: [
            "/sys/fs/cgroup/system.slice/magpie.service/cpu.max": "50000 100000\n",
            "/sys/fs/cgroup/cpu.stat": "usage_usec 1\n",
        ])
        let cpu = try #require(CgroupCPU.locate(root: root.path))
        #expect(cpu.cgroup.directory == root.path + "/sys/fs/cgroup/system.slice/magpie.service")
        #expect(cpu.quota == 0.5)
        #expect(Processors.available(affinity: 4, quota: cpu.quota) == 1, "half a processor is still one thread")
    }

    @Test func noQuotaLeavesTheAffinity() throws {
        let v2 = try FakeRoot(cgroup: "0::/app\n", mounts: CgroupMemoryTests.v2Mounts, files: ["/sys/fs/cgroup/app/cpu.max": "max 100000\n"])
        #expect(try #require(CgroupCPU.locate(root: v2.path)).quota == nil)
        let v1 = try FakeRoot(cgroup: "2:cpu,cpuacct:/\n", mounts: Self.v1Mounts.replacingOccurrences(of: "/machine.slice/libpod-abc", with: "/"), files: [
            "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "-1\n", "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
        ])
        #expect(try #require(CgroupCPU.locate(root: v1.path)).quota == nil)
        // The root cgroup of a v2 hierarchy has no cpu.max at all.
        let root = try FakeRoot(cgroup: "0::/\n", mounts: CgroupMemoryTests.v2Mounts, files: ["/sys/fs/cgroup/cpu.stat": "usage_usec 1\n"])
        #expect(CgroupCPU.locate(root: root.path) == nil)
        #expect(Processors.available(affinity: 6, quota: nil) == 6)
    }

    @Test func theQuotaNeverAddsProcessors() {
        #expect(Processors.available(affinity: 2, quota: 16) == 2)
        #expect(Processors.available(affinity: 2, quota: 1) == 1)
        #expect(Processors.available(affinity: 0, quota: nil) == 1)
        #expect(Processors.available(affinity: 4, quota: 0.001) == 1)
    }

    @Test func cpuacctAndCpusetAreNotTheCpuController() throws {
        // Only cpuacct and cpuset are v1 hierarchies here: no bandwidth files to read.
        let root = try FakeRoot(
            cgroup: "3:cpuset:/\n2:cpuacct:/\n", mounts: "37 31 0:34 / /sys/fs/cgroup/cpuset ro - cgroup cgroup rw,cpuset\n38 31 0:35 / /sys/fs/cgroup/cpuacct ro - cgroup cgroup rw,cpuacct\n",
            files: ["/sys/fs/cgroup/cpuacct/cpu.cfs_quota_us": "100000\n", "/sys/fs/cgroup/cpuset/cpu.cfs_quota_us": "100000\n"])
        #expect(CgroupCPU.locate(root: root.path) == nil)
    }
}
