import Foundation
import MagpieTesting
import Testing

@Suite("magpie prefetch and magpie cache")
struct PrefetchAndCacheCommandTests {
    @Test func prefetchWarmsTheDiskCacheThatFetchThenUses() async throws {
        try await withCLIFixture { fixture in
            let urls = CLIFixture.images.map { fixture.url($0.path) }
            let list = fixture.path("urls.txt")
            try Data(urls.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: list))

            let prefetch = try await fixture.magpie("prefetch", list, "--cache-dir", fixture.cacheDirectory)
            #expect(prefetch.status == 0, "\(prefetch.standardError)")
            #expect(prefetch.standardOutput.contains("Prefetched 3 · already cached 0 · failed 0"))
            #expect(fixture.server.totalRequests == 3)

            let again = try await fixture.magpie("prefetch", "-", "--cache-dir", fixture.cacheDirectory, input: urls.joined(separator: "\n"))
            #expect(again.standardOutput.contains("Prefetched 0 · already cached 3"))
            #expect(fixture.server.totalRequests == 3)

            let stats = try await fixture.magpie("cache", "stats", "--cache-dir", fixture.cacheDirectory)
            #expect(stats.status == 0)
            #expect(stats.standardOutput.contains("Images:    3"))
            #expect(stats.standardOutput.contains("Variants:  0"))
            #expect(stats.standardOutput.contains(" kB"), "sizes in human units: \(stats.standardOutput)")

            let fetch = try await fixture.tool.run(["fetch", "--json", "--cache-dir", fixture.cacheDirectory] + urls)
            #expect(fetch.status == 0)
            #expect(fetch.outputLines.allSatisfy { $0.contains("\"source\":\"disk\"") })
            #expect(fixture.server.totalRequests == 3)
        }
    }

    @Test func prefetchReportsFailuresAndExitsWithOne() async throws {
        try await withCLIFixture { fixture in
            let list = [fixture.url("/photos/cat.jpg"), fixture.url("/missing.png"), fixture.url("/page.jpg")].joined(separator: "\n")
            let result = try await fixture.magpie("prefetch", "-", "--cache-dir", fixture.cacheDirectory, input: list)
            #expect(result.status == 1)
            #expect(result.standardOutput.contains("error  \(fixture.url("/missing.png"))  HTTP 404 Not Found"))
            #expect(result.standardOutput.contains("error  \(fixture.url("/page.jpg"))  not an image"))
            #expect(result.standardOutput.contains("Prefetched 1 · already cached 0 · failed 2"))
        }
    }

    @Test func trimClearAndPathManageTheCache() async throws {
        try await withCLIFixture { fixture in
            let urls = CLIFixture.images.map { fixture.url($0.path) }
            _ = try await fixture.tool.run(["prefetch", "-", "--cache-dir", fixture.cacheDirectory], input: urls.joined(separator: "\n"))

            let path = try await fixture.magpie("cache", "path", "--cache-dir", fixture.cacheDirectory)
            #expect(path.standardOutput == fixture.cacheDirectory + "\n")
            let defaultPath = try await fixture.magpie("cache", "path")
            #expect(defaultPath.standardOutput == fixture.tool.home.appendingPathComponent(".cache/magpie").path + "\n")

            let trim = try await fixture.magpie("cache", "trim", "--max-size", "1 B", "--cache-dir", fixture.cacheDirectory)
            #expect(trim.status == 0)
            #expect(trim.standardOutput.hasPrefix("Removed 3 images"), "\(trim.standardOutput)")
            _ = try await fixture.tool.run(["prefetch", "-", "--cache-dir", fixture.cacheDirectory], input: urls.joined(separator: "\n"))
            let clear = try await fixture.magpie("cache", "clear", "--cache-dir", fixture.cacheDirectory)
            #expect(clear.standardOutput.hasPrefix("Removed 3 images"), "\(clear.standardOutput)")
            let stats = try await fixture.magpie("cache", "stats", "--cache-dir", fixture.cacheDirectory)
            #expect(stats.standardOutput.contains("Images:    0"))

            let absent = try await fixture.magpie("cache", "stats", "--cache-dir", fixture.path("never-made"))
            #expect(absent.status == 0)
            #expect(absent.standardOutput.contains("No cache at"))
            #expect(!FileManager.default.fileExists(atPath: fixture.path("never-made")), "looking does not create a cache")
        }
    }

    @Test func clearLeavesFilesItDidNotWrite() async throws {
        try await withCLIFixture { fixture in
            let folder = fixture.path("shared-folder")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // As long as a cache file name, but not hexadecimal, so not one of the cache's.
            let precious = String(repeating: "z", count: 64)
            try Data("keep me".utf8).write(to: URL(fileURLWithPath: folder + "/" + precious))
            try Data("keep me too".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
            let clear = try await fixture.magpie("cache", "clear", "--cache-dir", folder)
            #expect(clear.status == 0)
            #expect(FileManager.default.fileExists(atPath: folder + "/notes.txt"))
            #expect(FileManager.default.fileExists(atPath: folder + "/" + precious))
        }
    }
}
