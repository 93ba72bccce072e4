import Foundation
import Logging
import Magpie
import MagpieTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs mounted for one test, to make a disk that fills up or turns read-only. Needs
/// root (CI runs as root); elsewhere the tests that need it are skipped with this reason.
enum ScratchMount {
    static let reason = "needs root and mount(8) to make a small tmpfs"

    static let isAvailable: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-mount-probe-\(getpid())")
        defer { try? FileManager.default.removeItem(at: probe) }
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil,
            run("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path)
        else { return false }
        return run("umount", probe.path)
    }()

    /// Runs `body` with a fresh tmpfs of `size` (as mount(8) writes it, e.g. `512k`).
    static func with(size: String, _ body: (URL) async throws -> Void) async throws {
        let point = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-mount-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
        try #require(run("mount", "-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", point.path))
        do {
            try await body(point)
        } catch {
            unmount(point)
            throw error
        }
        unmount(point)
    }

    static func remountReadOnly(_ point: URL) -> Bool { run("mount", "-o", "remount,ro", point.path) }

    private static func unmount(_ point: URL) {
        _ = run("umount", "-l", point.path)
        try? FileManager.default.removeItem(at: point)
    }

    @discardableResult
    private static func run(_ arguments: String...) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        return ChildEnd.waitBlocking(for: process, limit: .seconds(60)) == 0
    }
}

@Suite("Disk faults", .serialized)
struct DiskFaultTests {
    /// Noise compresses badly, so each PNG is about `side`² × 3 bytes.
    static func serveImages(_ fixture: TestFixture, count: Int, side: Int = 100) throws -> [URL] {
        try (0..<count).map { index in
            fixture.server.serve("/d\(index).png", .image(try TestImages.texture(width: side, height: side, format: .png, seed: UInt32(index + 1))))
            return fixture.server.url("/d\(index).png")
        }
    }

    static func diskErrors(_ recorder: LogRecorder) -> [LogRecorder.Entry] {
        recorder.messages(atLeast: .error).filter { $0.message.contains("disk cache") }
    }

    /// The cache's entry files and their total size.
    static func filesOnDisk(_ directory: URL) -> (count: Int, bytes: Int) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let entries = names.filter { $0.count == 64 }
        let bytes = entries.reduce(0) { total, name in
            let size = (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size]) as? NSNumber
            return total + (size?.intValue ?? 0)
        }
        return (entries.count, bytes)
    }

    @Test(.enabled(if: ScratchMount.isAvailable, Comment(rawValue: ScratchMount.reason)))
    func aReadOnlyCacheFolderStillServesFromTheNetwork() async throws {
        try await ScratchMount.with(size: "8m") { mount in
            let recorder = LogRecorder()
            let directory = mount.appendingPathComponent("cache")
            try await withTestFixture(configure: { configuration in
                configuration.diskCache = DataCache.Configuration(directory: directory)
                configuration.logger = recorder.logger(label: "magpie")
            }) { fixture in
                let urls = try Self.serveImages(fixture, count: 10)
                for url in urls.prefix(2) { _ = try await fixture.pipeline.image(for: url) }
                await fixture.pipeline.dataCache?.flush()
                #expect(Self.filesOnDisk(directory).count == 2)
                try #require(ScratchMount.remountReadOnly(mount))
                for url in urls.dropFirst(2) {
                    #expect(try await fixture.pipeline.image(for: ImageRequest(url: url)).source == .network)
                }
                await fixture.pipeline.dataCache?.flush()
                #expect(Self.diskErrors(recorder).count == 1, "logged once, not per request: \(Self.diskErrors(recorder).map(\.message))")
                #expect(await fixture.pipeline.dataCache?.count == 2)
            }
        }
    }

    @Test(.enabled(if: ScratchMount.isAvailable, Comment(rawValue: ScratchMount.reason)))
    func aFullDiskLogsOnceAndKeepsCachingWhatFits() async throws {
        try await ScratchMount.with(size: "400k") { mount in
            let recorder = LogRecorder()
            let directory = mount.appendingPathComponent("cache")
            try await withTestFixture(configure: { configuration in
                // The configured limit is far above what the disk holds.
                configuration.diskCache = DataCache.Configuration(directory: directory, sizeLimit: 100_000_000)
                configuration.logger = recorder.logger(label: "magpie")
            }) { fixture in
                let urls = try Self.serveImages(fixture, count: 30)
                for url in urls {
                    #expect(try await fixture.pipeline.image(for: ImageRequest(url: url)).image.width == 100)
                    await fixture.pipeline.dataCache?.flush()
                }
                let cache = try #require(fixture.pipeline.dataCache as? DataCache)
                let disk = Self.filesOnDisk(directory)
                #expect(Self.diskErrors(recorder).count == 1, "\(Self.diskErrors(recorder).map(\.message))")
                #expect(disk.count > 0, "the cache keeps what fits")
                #expect(await cache.count == disk.count)
                #expect(await cache.totalSize == disk.bytes)
                // The most recent image fitted after older ones made room.
                let last = try #require(urls.last)
                #expect(await cache.entry(for: last.absoluteString) != nil)
            }
        }
    }

    @Test func aCacheFolderDeletedInUseIsMadeAgain() async throws {
        let recorder = LogRecorder()
        try await withTestFixture(configure: { $0.logger = recorder.logger(label: "magpie") }) { fixture in
            let urls = try Self.serveImages(fixture, count: 6)
            let cache = try #require(fixture.pipeline.dataCache as? DataCache)
            let directory = cache.configuration.directory
            for url in urls.prefix(3) { _ = try await fixture.pipeline.image(for: url) }
            await cache.flush()
            try FileManager.default.removeItem(at: directory)

            for url in urls.suffix(3) {
                #expect(try await fixture.pipeline.image(for: ImageRequest(url: url)).source == .network)
            }
            await cache.flush()
            // The lost entries are misses, found out and forgotten on first read.
            for url in urls.prefix(3) { #expect(await cache.entry(for: url.absoluteString) == nil) }
            await cache.flush()
            let disk = Self.filesOnDisk(directory)
            #expect(disk.count == 3)
            #expect(await cache.count == 3)
            #expect(await cache.totalSize == disk.bytes)
            #expect(Self.diskErrors(recorder).isEmpty)
        }
    }

    @Test(arguments: ["bit flip", "truncation"])
    func aDamagedCacheFileIsAMissAndTheImageIsLoadedAgain(damage: String) async throws {
        try await withTestFixture { fixture in
            let url = try #require(try Self.serveImages(fixture, count: 1).first)
            _ = try await fixture.pipeline.image(for: url)
            let cache = try #require(fixture.pipeline.dataCache as? DataCache)
            await cache.flush()
            let file = cache.fileURL(for: url.absoluteString)
            var bytes = Array(try Data(contentsOf: file))
            if damage == "bit flip" { bytes[bytes.count - 100] ^= 0x10 } else { bytes.removeLast(bytes.count / 3) }
            try Data(bytes).write(to: file)

            let fresh = ImagePipeline(configuration: fixture.pipeline.configuration)
            let response = try await fresh.image(for: ImageRequest(url: url))
            #expect(response.source == .network)
            #expect(response.image.width == 100)
            #expect(fixture.server.statistics(for: "/d0.png").requests == 2)
            await fresh.shutdown()
        }
    }
}
