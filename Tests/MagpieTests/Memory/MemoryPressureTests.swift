import Foundation
@testable import Magpie
import Logging
import MagpieTesting
import MetricsTestKit
import Testing

@Suite("Memory pressure empties the memory cache", .timeLimit(.minutes(1)))
struct MemoryPressureTests {
    /// Loads `count` small images so the memory cache holds them.
    static func fill(_ fixture: TestFixture, count: Int) async throws {
        for index in 0..<count {
            fixture.server.serve("/i\(index).png", .image(try TestImages.texture(width: 20 + index, height: 20, format: .png)))
            _ = try await fixture.pipeline.image(for: fixture.server.url("/i\(index).png"))
        }
    }

    @Test func reportedPressureEmptiesTheCacheAndSaysSo() async throws {
        let pressure = ManualMemoryPressure()
        let logs = LogRecorder()
        let metrics = TestMetrics()
        try await withTestFixture(configure: { configuration in
            configuration.memoryPressure = pressure
            configuration.logger = logs.logger(label: "magpie")
            configuration.metricsFactory = metrics
        }) { fixture in
            try await Self.fill(fixture, count: 5)
            let cost = try #require(fixture.pipeline.memoryCache?.totalCost)
            #expect(cost > 0)
            #expect(pressure.watchCount == 1)

            pressure.report(MemoryPressure(reason: .nearLimit(usage: 950 << 20, limit: 1000 << 20)))

            #expect(fixture.pipeline.memoryCache?.count == 0)
            #expect(fixture.pipeline.statistics.memoryTrims == 1)
            #expect(try metrics.expectCounter("magpie_memory_trims_total").totalValue == 1)
            #expect(try metrics.expectCounter("magpie_memory_trimmed_bytes_total").totalValue == Int64(cost))
            let warnings = logs.messages(atLeast: .warning).map(\.message)
            #expect(warnings.contains { $0.contains("cgroup memory at 95% of its 1000 MB limit") && $0.contains("5 images") },
                    "\(warnings)")
            // The cache keeps working afterwards.
            _ = try await fixture.pipeline.image(for: fixture.server.url("/i0.png"))
            #expect(fixture.pipeline.memoryCache?.count == 1)
        }
        #expect(pressure.watchCount == 0, "shutdown stops the watch")
    }

    @Test func trimMemoryCanBeCalledForOtherSignals() async throws {
        try await withTestFixture(configure: { $0.memoryPressure = nil }) { fixture in
            try await Self.fill(fixture, count: 3)
            let cost = fixture.pipeline.memoryCache?.totalCost ?? 0
            #expect(fixture.pipeline.trimMemory(reason: "admin asked") == cost)
            #expect(fixture.pipeline.memoryCache?.totalCost == 0)
            #expect(fixture.pipeline.statistics.memoryTrims == 1)
        }
    }

    @Test func turnedOffNothingWatches() async throws {
        let pressure = ManualMemoryPressure()
        try await withTestFixture(configure: { $0.memoryPressure = pressure; $0.memoryCache = nil; $0.encodedMemoryCacheLimit = nil }) { _ in
            #expect(pressure.watchCount == 0, "no memory cache, nothing to trim")
        }
        // Encoded output alone is still worth trimming.
        try await withTestFixture(configure: { $0.memoryPressure = pressure; $0.memoryCache = nil }) { _ in
            #expect(pressure.watchCount == 1)
        }
    }

    @Test func aReleasedPipelineStopsWatching() async throws {
        let pressure = ManualMemoryPressure()
        do {
            var configuration = ImagePipeline.Configuration()
            configuration.diskCache = nil
            configuration.memoryPressure = pressure
            let pipeline = ImagePipeline(configuration: configuration)
            #expect(pressure.watchCount == 1)
            await pipeline.shutdown()
        }
        #expect(pressure.watchCount == 0)
    }
}

/// The Linux source, against fake /proc and /sys trees laid out as real hosts have them.
@Suite("Cgroup memory accounting")
struct CgroupMemoryTests {
    /// A temporary directory standing for `/`.
    final class FakeRoot: Sendable {
        let path: String

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-root-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        /// A tree where the process belongs to `cgroup` (the lines of /proc/self/cgroup), with
        /// `mounts` as its mountinfo and `files` (path: contents) under the cgroup mounts.
        convenience init(cgroup: String, mounts: String, files: [String: String]) throws {
            try self.init()
            try write(cgroup, to: "/proc/self/cgroup")
            try write(mounts, to: "/proc/self/mountinfo")
            for (file, contents) in files { try write(contents, to: file) }
        }

        func write(_ text: String, to file: String) throws {
            let full = path + file
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static let v2Mounts = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
    static let hybridMounts = """
        35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
        41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw

        """

    @Test func cgroupV2WorkingSetLeavesOutInactivePageCache() throws {
        let directory = "/sys/fs/cgroup/system.slice/app.service"
        let root = try FakeRoot(cgroup: "0::/system.slice/app.service\n", mounts: Self.v2Mounts, files: [
            directory + "/memory.current": "900000000\n",
            directory + "/memory.max": "1000000000\n",
            directory + "/memory.stat": "anon 700000000\nfile 200000000\ninactive_file 150000000\nactive_file 50000000\n",
            directory + "/memory.pressure": "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
        ])

        let cgroup = try #require(CgroupMemory.locate(root: root.path))
        #expect(cgroup.version == .v2)
        #expect(cgroup.directory == root.path + directory)
        #expect(cgroup.pressureFile == root.path + directory + "/memory.pressure")
        let workingSet = try #require(cgroup.workingSet())
        #expect(workingSet.usage == 750_000_000)
        #expect(workingSet.limit == 1_000_000_000)
    }

    @Test func cgroupV2WithoutALimitHasNoWorkingSetBound() throws {
        let root = try FakeRoot(cgroup: "0::/\n", mounts: Self.v2Mounts, files: [
            "/sys/fs/cgroup/memory.current": "12345\n", "/sys/fs/cgroup/memory.max": "max\n",
        ])
        let cgroup = try #require(CgroupMemory.locate(root: root.path))
        #expect(cgroup.workingSet() == nil)
    }

    @Test func aServicesMemoryLimitSetsTheDecodeBudget() throws {
        let limited = try FakeRoot(cgroup: "0::/system.slice/magpie.service\n", mounts: Self.v2Mounts, files: [
            "/sys/fs/cgroup/system.slice/magpie.service/memory.current": "1000\n",
            "/sys/fs/cgroup/system.slice/magpie.service/memory.max": "536870912\n",
        ])
        #expect(try #require(CgroupMemory.locate(root: limited.path)).limit == 536_870_912)
        let unlimited = try FakeRoot(cgroup: "0::/\n", mounts: Self.v2Mounts, files: [
            "/sys/fs/cgroup/memory.current": "1000\n", "/sys/fs/cgroup/memory.max": "max\n",
        ])
        #expect(try #require(CgroupMemory.locate(root: unlimited.path)).limit == nil)

        let standard = ImagePipeline.Configuration().decodeMemoryBudget
        #expect(DecodeMemory.budget(withinMemoryLimit: nil) == standard)
        #expect(DecodeMemory.budget(withinMemoryLimit: 536_870_912) == 134_217_728, "a quarter of 512 MiB")
        #expect(DecodeMemory.budget(withinMemoryLimit: 8 << 30) == standard, "never more than the default")
        #expect(DecodeMemory.budget(withinMemoryLimit: 2) == 1)
    }

    @Test func hybridHostUsesTheV1MemoryController() throws {
        let directory = "/sys/fs/cgroup/memory/process_api/abc"
        let root = try FakeRoot(cgroup: "4:memory:/process_api/abc\n0::/\n", mounts: Self.hybridMounts, files: [
            directory + "/memory.usage_in_bytes": "600000000\n",
            directory + "/memory.limit_in_bytes": "536870912\n",
            directory + "/memory.stat": "cache 100\ntotal_inactive_file 100000000\n",
        ])
        let cgroup = try #require(CgroupMemory.locate(root: root.path))
        #expect(cgroup.version == .v1)
        #expect(cgroup.pressureFile == nil)
        let workingSet = try #require(cgroup.workingSet())
        #expect(workingSet.usage == 500_000_000)
        #expect(workingSet.limit == 536_870_912)
    }

    @Test func containerSeesItsOwnCgroupAsTheMountRoot() throws {
        // Inside a container the path names the host's cgroup, but only that cgroup is mounted.
        let root = try FakeRoot(
            cgroup: "0::/kubepods/pod1/ctr\n", mounts: "30 23 0:26 /kubepods/pod1/ctr /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n",
            files: ["/sys/fs/cgroup/memory.current": "1\n", "/sys/fs/cgroup/memory.max": "max\n"])
        let cgroup = try #require(CgroupMemory.locate(root: root.path))
        #expect(cgroup.directory == root.path + "/sys/fs/cgroup")
    }

    @Test func v1WithoutALimitReportsNone() throws {
        let root = try FakeRoot(cgroup: "4:memory:/\n", mounts: Self.hybridMounts, files: [
            "/sys/fs/cgroup/memory/memory.usage_in_bytes": "600000000\n",
            "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
        ])
        let cgroup = try #require(CgroupMemory.locate(root: root.path))
        #expect(cgroup.workingSet() == nil)
    }

    @Test func noCgroupFilesNoSource() throws {
        let root = try FakeRoot()
        #expect(CgroupMemory.locate(root: root.path) == nil)
    }

    @Test func usageNearTheLimitIsReported() async throws {
        let root = try FakeRoot(cgroup: "0::/app\n", mounts: Self.v2Mounts, files: [
            "/sys/fs/cgroup/app/memory.current": "104857600\n", "/sys/fs/cgroup/app/memory.max": "1048576000\n",
        ])
        var source = SystemMemoryPressure()
        source.root = root.path
        source.checkInterval = .milliseconds(5)
        source.minimumInterval = .seconds(60)
        let reports = AsyncStream.makeStream(of: MemoryPressure.self)
        let watch = source.watch { reports.continuation.yield($0) }
        defer { watch.cancel() }
        // Well under the limit: nothing is reported.
        try await Task.sleep(for: .milliseconds(50))
        try root.write("996147200\n", to: "/sys/fs/cgroup/app/memory.current")
        var first: MemoryPressure?
        for await report in reports.stream {
            first = report
            break
        }
        #expect(first == MemoryPressure(reason: .nearLimit(usage: 996_147_200, limit: 1_048_576_000)))
        #expect(first?.description == "cgroup memory at 95% of its 1000 MB limit")
    }
}
