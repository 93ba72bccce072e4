import Foundation
@testable import Magpie
#if canImport(Glibc)
import Glibc
#endif
import Logging
import MagpieTesting
import Testing

@Suite("Disk cache")
struct DiskCacheTests {
    static func withDirectory<T>(_ body: (URL) async throws -> T) async rethrows -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-disk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    static func entry(_ key: String, size: Int = 1_000, byte: UInt8 = 7) -> CachedData {
        CachedData(key: key, data: [UInt8](repeating: byte, count: size), metadata: HTTPMetadata(etag: "\"\(key)\"", contentType: "image/png"))
    }

    @Test func storesAndReadsBack() async {
        await Self.withDirectory { directory in
            let cache = DataCache(configuration: .init(directory: directory))
            cache.store(Self.entry("https://example.com/a.png"))
            await cache.flush()
            // A second instance over the same directory sees the file.
            let reopened = DataCache(configuration: .init(directory: directory))
            let read = await reopened.entry(for: "https://example.com/a.png")
            #expect(read == Self.entry("https://example.com/a.png"))
            #expect(await reopened.count == 1)
            #expect(await reopened.entry(for: "https://example.com/other.png") == nil)
        }
    }

    @Test func aFlippedByteIsAMissAndTheFileIsRemoved() async throws {
        try await Self.withDirectory { directory in
            let cache = DataCache(configuration: .init(directory: directory))
            let key = "https://example.com/flip.png"
            cache.store(Self.entry(key, size: 5_000))
            await cache.flush()
            let file = cache.fileURL(for: key)
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count - 100] ^= 0x01
            try bytes.write(to: file)
            let fresh = DataCache(configuration: .init(directory: directory))
            #expect(await fresh.entry(for: key) == nil)
            await fresh.flush()
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    }

    @Test func truncatedAndForeignFilesAreMisses() async throws {
        try await Self.withDirectory { directory in
            let cache = DataCache(configuration: .init(directory: directory))
            let key = "k"
            cache.store(Self.entry(key))
            await cache.flush()
            let file = cache.fileURL(for: key)
            let bytes = try Data(contentsOf: file)
            try bytes.prefix(bytes.count / 2).write(to: file)
            #expect(await DataCache(configuration: .init(directory: directory)).entry(for: key) == nil)
            try Data("not a cache file".utf8).write(to: file)
            #expect(await DataCache(configuration: .init(directory: directory)).entry(for: key) == nil)
        }
    }

    @Test func anEntryUnderAnotherKeyIsAMiss() async throws {
        try await Self.withDirectory { directory in
            let cache = DataCache(configuration: .init(directory: directory))
            cache.store(Self.entry("first"))
            await cache.flush()
            // Put first's file where second's would be: the key inside does not match.
            try FileManager.default.copyItem(at: cache.fileURL(for: "first"), to: cache.fileURL(for: "second"))
            #expect(await DataCache(configuration: .init(directory: directory)).entry(for: "second") == nil)
        }
    }

    @Test func sizeLimitIsEnforcedOnEveryWriteLeastRecentlyUsedFirst() async {
        await Self.withDirectory { directory in
            let clock = ManualClock()
            // Each entry is a little over 10 kB on disk; the limit holds about four.
            let cache = DataCache(configuration: .init(directory: directory, sizeLimit: 45_000), now: clock.wall)
            for index in 0..<4 {
                cache.store(Self.entry("e\(index)", size: 10_000))
                await cache.flush()
                clock.advance(by: .seconds(1))
            }
            _ = await cache.entry(for: "e0")  // e0 becomes the most recently used
            clock.advance(by: .seconds(1))
            cache.store(Self.entry("e4", size: 10_000))
            await cache.flush()
            #expect(await cache.totalSize <= 45_000)
            #expect(await cache.entry(for: "e0") != nil)
            #expect(await cache.entry(for: "e1") == nil)
            #expect(await cache.entry(for: "e4") != nil)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            let onDisk = files.compactMap { try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent($0).path)[.size] as? Int }
            #expect(onDisk.reduce(0, +) <= 45_000)
        }
    }

    @Test func entriesUnusedForSevenDaysExpire() async {
        await Self.withDirectory { directory in
            let clock = ManualClock()
            let cache = DataCache(configuration: .init(directory: directory), now: clock.wall)
            cache.store(Self.entry("old"))
            await cache.flush()
            clock.advance(by: .seconds(6 * 24 * 3600))
            #expect(await cache.entry(for: "old") != nil)  // used: the clock restarts
            clock.advance(by: .seconds(7 * 24 * 3600 + 1))
            #expect(await cache.entry(for: "old") == nil)
        }
    }

    @Test func filesArePrivate() async throws {
        try await Self.withDirectory { directory in
            let cache = DataCache(configuration: .init(directory: directory))
            cache.store(Self.entry("secret"))
            await cache.flush()
            let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
            let fileMode = try FileManager.default.attributesOfItem(atPath: cache.fileURL(for: "secret").path)[.posixPermissions] as? Int
            #expect(directoryMode == 0o700)
            #expect(fileMode == 0o600)
        }
    }

    @Test func keysCannotChooseThePath() async {
        await Self.withDirectory { directory in
            let cache = DataCache(configuration: .init(directory: directory))
            for key in ["../../etc/passwd", "a\0b", "/absolute", String(repeating: "x", count: 10_000)] {
                let file = cache.fileURL(for: key)
                #expect(file.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
                #expect(file.lastPathComponent.count == 64)
            }
        }
    }

    @Test func removeAllAndTrim() async {
        await Self.withDirectory { directory in
            let cache = DataCache(configuration: .init(directory: directory))
            for index in 0..<5 { cache.store(Self.entry("r\(index)", size: 2_000)) }
            await cache.flush()
            #expect(await cache.count == 5)
            await cache.trim(toSize: 5_000)
            #expect(await cache.totalSize <= 5_000)
            await cache.removeAll()
            #expect(await cache.count == 0)
            #expect(await cache.entry(for: "r4") == nil)
        }
    }

    @Test func concurrentReadersAndWritersSeeWholeEntries() async {
        await Self.withDirectory { directory in
            let cache = DataCache(configuration: .init(directory: directory))
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<6 {
                    group.addTask {
                        for round in 0..<50 {
                            let key = "shared\(round % 5)"
                            if worker % 2 == 0 {
                                cache.store(Self.entry(key, size: 3_000, byte: UInt8(round % 200)))
                            } else if let read = await cache.entry(for: key) {
                                #expect(read.data.count == 3_000)
                                #expect(Set(read.data).count == 1, "bytes of one write only")
                            }
                        }
                    }
                }
            }
        }
    }
}

@Suite("Disk cache at scale")
struct DiskCacheScaleTests {
    @Test func openingAHundredThousandEntriesDoesNotBlockTheFirstRead() async {
        await DiskCacheTests.withDirectory { directory in
            let seed = DataCache(configuration: .init(directory: directory))
            seed.store(DiskCacheTests.entry("wanted"))
            await seed.flush()
            // 100,000 more entry files: the scan only looks at names, sizes and times.
            var created = 0
            for index in 0..<100_000 {
                let path = directory.path + "/" + String(format: "%064x", index)
                let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
                if descriptor >= 0, write(descriptor, [UInt8(1)], 1) == 1 { created += 1 }
                close(descriptor)
            }
            #expect(created == 100_000)
            let clock = ContinuousClock()
            let openedAt = clock.now
            // The scan is held until the read is back, so the read cannot have waited for it.
            // A read that did wait is let through after 5 minutes, and then fails the
            // expectation below instead of hanging the suite. The wait is that long because the
            // read's work item shares Dispatch's CPU-wide pool with every other test running in
            // parallel: on a loaded 2-core CI machine it once came back after more than 30 s
            // without having waited for the scan at all.
            let scanMayStart = DispatchSemaphore(value: 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + 300) { scanMayStart.signal() }
            let cache = DataCache(
                configuration: .init(directory: directory), logger: Logger(label: "test"), now: { Date() },
                beforeScan: { scanMayStart.wait() })
            let read = await cache.entry(for: "wanted")
            let scanWasRunning = !cache.hasFinishedOpening
            scanMayStart.signal()
            #expect(read == DiskCacheTests.entry("wanted"))
            #expect(scanWasRunning, "the read should not have waited for the scan")
            #expect(await cache.count == 100_001)
            #expect(cache.hasFinishedOpening)
            print("scanned 100,001 entries in \(clock.now - openedAt)")
        }
    }
}
