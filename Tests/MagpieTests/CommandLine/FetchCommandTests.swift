import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("magpie fetch")
struct FetchCommandTests {
    static func decodeFile(_ path: String) throws -> DecodedImage {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        return try VipsDecoder().decode(bytes, thumbnail: nil, maximumPixels: 100_000_000)
    }

    static func jsonObjects(_ result: MagpieTool.Result) throws -> [[String: Any]] {
        try result.outputLines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    @Test(arguments: [("png", ImageFormat.png, "png"), ("jpeg", .jpeg, "jpg"), ("webp", .webp, "webp")])
    func thumbnailsAreWrittenInTheAskedFormatAndSize(format: String, expected: ImageFormat, fileExtension: String) async throws {
        try await withCLIFixture { fixture in
            let output = fixture.path("out-\(format)")
            let result = try await fixture.magpie(
                "fetch", fixture.url("/photos/cat.jpg"), fixture.url("/photos/tower.png"), fixture.url("/art/cat.webp"),
                "--output", output, "--format", format, "--thumbnail", "64x64", "--cache-dir", fixture.cacheDirectory)
            #expect(result.status == 0, "\(result.standardError)")
            // Two URLs end in "cat": the second gets a numeric suffix, in input order.
            let expectations = [("cat", 64, 48), ("tower", 48, 64), ("cat-2", 64, 64)]
            for (name, width, height) in expectations {
                let image = try Self.decodeFile("\(output)/\(name).\(fileExtension)")
                #expect(image.sourceFormat == expected)
                #expect((image.width, image.height) == (width, height), "\(name)")
            }
            #expect(result.standardOutput.contains("Loaded 3 of 3 images"))
        }
    }

    /// Ultra HDR JPEGs and a stereo MPO (UltraHDRTests makes them, with libultrahdr and Pillow)
    /// are fetched as the JPEGs they are, into every format, upright and close to the SDR
    /// rendition libultrahdr's own decoder gives.
    @Test func ultraHDRPhotosAreWrittenInEveryFormat() async throws {
        let made = try UltraHDRTests.photos.get()
        try await withCLIFixture { fixture in
            for (name, photo) in made.photos { fixture.server.serve("/hdr/\(name).jpg", .image(try made.bytes(photo))) }
            let urls = made.photos.map { fixture.url("/hdr/\($0.name).jpg") }
            var outputs: [String: [URL]] = [:]
            for (format, _) in UltraHDRTests.formats {
                let folder = fixture.path("hdr-\(format.rawValue)")
                let result = try await fixture.tool.run(
                    ["fetch"] + urls + ["--output", folder, "--format", format.rawValue, "--thumbnail", "240x240", "--no-cache"])
                #expect(result.status == 0, "\(format): \(result.standardError)")
                for (name, _) in made.photos {
                    outputs[name, default: []].append(URL(fileURLWithPath: "\(folder)/\(name).\(format.fileExtension)"))
                }
            }
            for (name, photo) in made.photos {
                let size = UltraHDRTests.fitted(photo, in: 240)
                UltraHDRTests.expectClose(
                    try UltraHDRTests.compare(outputs[name] ?? [], with: made.reference(photo)), formats: UltraHDRTests.formats.map(\.pillow),
                    width: size.width, height: size.height, "magpie fetch, \(name)")
            }
        }
    }

    @Test func fillCropsToTheWholeBox() async throws {
        try await withCLIFixture { fixture in
            let output = fixture.path("filled")
            let result = try await fixture.magpie(
                "fetch", fixture.url("/photos/cat.jpg"), "--output", output, "--thumbnail", "50x50", "--fit", "fill", "--no-cache")
            #expect(result.status == 0, "\(result.standardError)")
            let image = try Self.decodeFile("\(output)/cat.png")
            #expect((image.width, image.height) == (50, 50))
        }
    }

    @Test func withoutAFormatTheDownloadedBytesAreKept() async throws {
        try await withCLIFixture { fixture in
            let output = fixture.path("originals")
            let result = try await fixture.magpie(
                "fetch", fixture.url("/photos/cat.jpg"), fixture.url("/art/cat.webp"), "--output", output, "--no-cache")
            #expect(result.status == 0, "\(result.standardError)")
            let served = try TestImages.texture(width: 400, height: 300, format: .jpeg, seed: 1)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: "\(output)/cat.jpg"))) == served)
            #expect(FileManager.default.fileExists(atPath: "\(output)/cat-2.webp"))
        }
    }

    @Test func jsonGivesOneObjectPerURL() async throws {
        try await withCLIFixture { fixture in
            let result = try await fixture.magpie(
                "fetch", "--json", fixture.url("/photos/tower.png"), fixture.url("/missing.png"), "--cache-dir", fixture.cacheDirectory)
            #expect(result.status == 1)
            let objects = try Self.jsonObjects(result)
            #expect(objects.count == 2, "standard output holds only JSON: \(result.standardOutput)")
            let byURL = Dictionary(uniqueKeysWithValues: objects.map { ($0["url"] as? String ?? "", $0) })
            let tower = try #require(byURL[fixture.url("/photos/tower.png")])
            #expect(tower["status"] as? String == "ok")
            #expect(tower["source"] as? String == "network")
            #expect(tower["width"] as? Int == 300 && tower["height"] as? Int == 400)
            #expect((tower["bytes"] as? Int ?? 0) > 1000)
            #expect(tower["milliseconds"] is Double)
            let missing = try #require(byURL[fixture.url("/missing.png")])
            #expect(missing["status"] as? String == "error")
            #expect(missing["error"] as? String == "HTTP 404 Not Found")
            #expect(result.standardError.contains("Loaded 1 of 2 images"), "the summary goes to standard error")
        }
    }

    @Test func failuresSayWhyInOneLine() async throws {
        try await withCLIFixture { fixture in
            let result = try await fixture.magpie(
                "fetch", "ftp://example.com/a.png", "http://", fixture.url("/missing.png"), fixture.url("/page.jpg"),
                fixture.url("/broken.png"), fixture.url("/photos/cat.jpg"), "--no-cache")
            #expect(result.status == 1)
            let lines = result.outputLines
            func line(for url: String) -> String { lines.first { $0.contains(url + " ") || $0.hasSuffix(url) } ?? "" }
            #expect(line(for: "ftp://example.com/a.png").contains("bad URL"))
            #expect(line(for: "http://").contains("bad URL"))
            #expect(line(for: fixture.url("/missing.png")).contains("HTTP 404 Not Found"))
            #expect(line(for: fixture.url("/page.jpg")).contains("not an image"))
            #expect(line(for: fixture.url("/broken.png")).contains("corrupt image"))
            #expect(line(for: fixture.url("/photos/cat.jpg")).hasPrefix("ok "))
            #expect(result.standardOutput.contains("failed    5"))
            #expect(result.standardError.isEmpty, "no logs without --verbose: \(result.standardError)")
        }
    }

    @Test func anUnwritableOutputFolderStopsBeforeAnyDownload() async throws {
        try await withCLIFixture { fixture in
            // A folder inside a regular file cannot be created, even by root.
            let file = fixture.path("a-file")
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            let result = try await fixture.magpie("fetch", fixture.url("/photos/cat.jpg"), "--output", file + "/images")
            #expect(result.status == 1)
            #expect(result.standardError.contains("cannot write to the output folder '\(file)/images': \(file) is a file, not a folder"))
            #expect(fixture.server.totalRequests == 0)
        }
    }

    @Test(arguments: [
        (["fetch"], "Give at least one URL"),
        (["fetch", "http://x/a.png", "--thumbnail", "0x10"], "--thumbnail must be"),
        (["fetch", "http://x/a.png", "--output", "o", "--format", "jp2"], "--format"),
        (["fetch", "http://x/a.png", "--output", "o", "--format", "original", "--thumbnail", "8x8"], "cannot be combined"),
        (["fetch", "http://x/a.png", "--concurrency", "0"], "--concurrency must be"),
        (["fetch", "http://x/a.png", "--no-cache", "--cache-dir", "c"], "cannot be used together"),
        (["fetch", "http://x/a.png", "--memory-cache", "plenty"], "--memory-cache must be a size"),
        (["fetch", "-i", "/nonexistent/list.txt"], "Cannot read the URL list"),
        (["fetch", "http://x/a.png", "--frobnicate"], "Unknown option"),
        (["cache", "trim", "--max-size", "lots"], "--max-size must be"),
        (["serve", "/nonexistent-folder"], "is not a folder"),
    ])
    func usageErrorsExitWithTwo(arguments: [String], message: String) async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let result = try await tool.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test func helpIsAvailableEverywhere() async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        for command in [[], ["fetch"], ["prefetch"], ["cache"], ["cache", "trim"], ["serve"], ["demo"]] {
            let result = try await tool.run(command + ["--help"])
            #expect(result.status == 0, "\(command)")
            #expect(result.standardOutput.contains("USAGE"), "\(command)")
        }
    }

    @Test func aURLListedTwiceComesFromMemoryUnlessTheMemoryCacheIsOff() async throws {
        try await withCLIFixture { fixture in
            let url = fixture.url(CLIFixture.images[0].path)
            let cached = try await fixture.tool.run(["fetch", "--json", "--no-cache", "--concurrency", "1", url, url])
            #expect(try Self.jsonObjects(cached).map { $0["source"] as? String } == ["network", "memory"])
            let uncached = try await fixture.tool.run(["fetch", "--json", "--no-cache", "--concurrency", "1", "--memory-cache", "0", url, url])
            #expect(try Self.jsonObjects(uncached).map { $0["source"] as? String } == ["network", "network"])
        }
    }

    @Test func aSecondRunComesFromTheDiskCache() async throws {
        try await withCLIFixture { fixture in
            let urls = CLIFixture.images.map { fixture.url($0.path) }
            let first = try await fixture.tool.run(["fetch", "--json", "--cache-dir", fixture.cacheDirectory] + urls)
            #expect(first.status == 0)
            #expect(try Self.jsonObjects(first).allSatisfy { $0["source"] as? String == "network" })
            let requests = fixture.server.totalRequests

            let second = try await fixture.tool.run(["fetch", "--json", "--cache-dir", fixture.cacheDirectory] + urls)
            #expect(second.status == 0)
            #expect(try Self.jsonObjects(second).allSatisfy { $0["source"] as? String == "disk" && $0["bytes"] as? Int == 0 })
            #expect(fixture.server.totalRequests == requests)
            #expect(second.standardError.contains("from      network 0 · disk 3 · memory 0"))

            let uncached = try await fixture.tool.run(["fetch", "--json", "--no-cache"] + urls)
            #expect(try Self.jsonObjects(uncached).allSatisfy { $0["source"] as? String == "network" })
            #expect(fixture.server.totalRequests == requests + 3)
        }
    }

    @Test func urlsComeFromAFileOrStandardInput() async throws {
        try await withCLIFixture { fixture in
            let list = "# my images\n\(fixture.url("/photos/cat.jpg"))\n\n  \(fixture.url("/art/cat.webp"))  \n"
            let file = fixture.path("list.txt")
            try Data(list.utf8).write(to: URL(fileURLWithPath: file))
            let fromFile = try await fixture.magpie("fetch", "--json", "--no-cache", "-i", file, fixture.url("/photos/tower.png"))
            #expect(fromFile.status == 0)
            #expect(try Self.jsonObjects(fromFile).count == 3)
            let fromInput = try await fixture.magpie("fetch", "--json", "--no-cache", "-i", "-", input: list)
            #expect(fromInput.status == 0)
            #expect(Set(try Self.jsonObjects(fromInput).compactMap { $0["url"] as? String })
                == [fixture.url("/photos/cat.jpg"), fixture.url("/art/cat.webp")])
        }
    }

    @Test func refreshRevalidatesWithTheServer() async throws {
        try await withCLIFixture { fixture in
            fixture.server.update("/photos/cat.jpg") { $0.etag = "\"v1\"" }
            let url = fixture.url("/photos/cat.jpg")
            _ = try await fixture.magpie("fetch", url, "--cache-dir", fixture.cacheDirectory)
            let cached = try await fixture.magpie("fetch", "--json", url, "--cache-dir", fixture.cacheDirectory)
            #expect(cached.standardOutput.contains("\"source\":\"disk\""))
            #expect(fixture.server.statistics(for: "/photos/cat.jpg").requests == 1)

            let refreshed = try await fixture.magpie("fetch", "--json", "--refresh", url, "--cache-dir", fixture.cacheDirectory)
            #expect(refreshed.status == 0)
            let statistics = fixture.server.statistics(for: "/photos/cat.jpg")
            #expect(statistics.requests == 2)
            #expect(statistics.notModified == 1, "the cached bytes were revalidated, not downloaded again")
            #expect(statistics.lastRequestHeaders["if-none-match"] == "\"v1\"")
        }
    }

    @Test func retryFailedTriesAURLThatFailedEarlierInTheRun() async throws {
        try await withCLIFixture { fixture in
            let url = fixture.url("/missing.png")
            // One at a time, so the second copy starts after the first failed.
            let blocked = try await fixture.magpie("fetch", url, url, "--concurrency", "1", "--no-cache")
            #expect(blocked.status == 1)
            #expect(blocked.standardOutput.contains("failed earlier in this run; --retry-failed tries again"))
            #expect(fixture.server.statistics(for: "/missing.png").requests == 1)

            let retried = try await fixture.magpie("fetch", url, url, "--concurrency", "1", "--no-cache", "--retry-failed")
            #expect(retried.outputLines.filter { $0.contains("HTTP 404 Not Found") }.count == 2)
            #expect(fixture.server.statistics(for: "/missing.png").requests == 3)
        }
    }

    @Test func verboseAddsThePipelinesLogs() async throws {
        try await withCLIFixture { fixture in
            let quiet = try await fixture.magpie("fetch", fixture.url("/missing.png"), "--no-cache")
            #expect(quiet.standardError.isEmpty)
            let verbose = try await fixture.magpie("fetch", fixture.url("/missing.png"), "--no-cache", "--verbose")
            #expect(verbose.standardError.contains("image load failed"), "\(verbose.standardError)")
            #expect(verbose.standardError.contains(fixture.url("/missing.png")))
        }
    }
}
