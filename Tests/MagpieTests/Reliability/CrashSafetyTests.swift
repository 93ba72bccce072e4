import Foundation
import Magpie
import MagpieTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A process writing the disk cache is killed with SIGKILL at random moments; whatever it left
/// must read back whole or not at all, and the reopened cache must account for it exactly.
@Suite("Crash safety of the disk cache")
struct CrashSafetyTests {
    static let rounds = ProcessInfo.processInfo.environment["MAGPIE_CRASH_ROUNDS"].flatMap(Int.init) ?? 20
    static let sizeLimit = 2_000_000

    @Test func killedWritersLeaveOnlyWholeEntries() async throws {
        let probe = try MagpieTool.locate("MagpieProbe")
        defer { probe.cleanUp() }
        let directory = probe.home.appendingPathComponent("cache")
        var random = SystemRandomNumberGenerator()
        var checkedEntries = 0
        // Each round starts again at entry-0, so files from a longer earlier round may remain.
        var highestIndex = 0
        for round in 0..<Self.rounds {
            let (process, output) = try probe.start(["write-cache", directory.path, "\(Self.sizeLimit)"])
            // Kill after a random number of stores: early (opening scan), mid-eviction, or later.
            let target = Int.random(in: 1...400, using: &random)
            var reported = 0
            try await waitUntil(timeout: .seconds(60)) {
                reported = Self.lineCount(output)
                return reported >= target || !process.isRunning
            }
            try #require(process.isRunning, "the writer died on its own in round \(round)")
            kill(process.processIdentifier, SIGKILL)
            #expect(await MagpieTool.waitForExit(process) == SIGKILL)

            let cache = DataCache(configuration: DataCache.Configuration(directory: directory, sizeLimit: Self.sizeLimit))
            await cache.flush()
            // Stores are handed over before their index is printed, so at most one more may exist.
            highestIndex = max(highestIndex, Self.lineCount(output) + 1)
            var readable = 0
            for index in 0...highestIndex {
                guard let entry = await cache.entry(for: "entry-\(index)") else { continue }
                readable += 1
                #expect(entry.data == TestPayloads.cacheEntry(index), "round \(round): entry-\(index) came back different")
            }
            let files = try Self.entryFiles(in: directory)
            #expect(readable == files.count, "round \(round): every file on disk is a whole entry")
            #expect(await cache.count == files.count, "round \(round): the index counts what is on disk")
            #expect(await cache.totalSize == files.reduce(0) { $0 + $1.size }, "round \(round): sizes add up")
            #expect(await cache.totalSize <= Self.sizeLimit)
            checkedEntries += readable
        }
        #expect(checkedEntries > 0, "the kills left entries to check")
    }

    static func lineCount(_ file: URL) -> Int {
        ((try? Data(contentsOf: file)) ?? Data()).reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    /// The cache's own files (64 hex characters) and their sizes; temporary files are not entries.
    static func entryFiles(in directory: URL) throws -> [(name: String, size: Int)] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.count == 64 && !$0.hasPrefix(".") }.map { name in
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return (name, (attributes[.size] as? NSNumber)?.intValue ?? 0)
        }
    }
}
