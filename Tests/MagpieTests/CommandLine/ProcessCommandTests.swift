import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("magpie fetch --process")
struct ProcessCommandTests {
    @Test func processesAndWritesTheResult() async throws {
        try await withCLIFixture { fixture in
            let folder = fixture.path("out")
            let result = try await fixture.magpie(
                "fetch", fixture.url("/photos/cat.jpg"), "--process", "resize:64x64:fill,round:8", "--output", folder, "--no-cache")
            #expect(result.status == 0, "\(result.standardError)")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder)
            let file = try #require(files.first)
            #expect(file.hasSuffix(".png"), "transparent corners need PNG by default")
            let image = try VipsDecoder().decode(
                Array(try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(file))), thumbnail: nil, maximumPixels: 1 << 24)
            #expect(image.width == 64 && image.height == 64)
            #expect(image.pixel(x: 0, y: 0).alpha == 0)
            #expect(image.pixel(x: 32, y: 32).alpha == 255)
        }
    }

    /// One run mixing jobs: a list line's own options replace the command's for its URL.
    @Test func aListLineGivesItsOwnWork() async throws {
        try await withCLIFixture { fixture in
            let folder = fixture.path("out")
            let cat = fixture.url("/photos/cat.jpg")
            let list = """
                \(cat)
                \(cat)?thumbnail --thumbnail 40x40 --fit fill
                \(cat)?processed --process resize:50x50:fill,round:8
                """
            let result = try await fixture.magpie(
                "fetch", "-i", "-", "--thumbnail", "20x20", "--output", folder, "--no-cache", "--json", input: list)
            #expect(result.status == 0, "\(result.standardError)")
            let sizes = Dictionary(uniqueKeysWithValues: try FetchCommandTests.jsonObjects(result).compactMap { object in
                (object["url"] as? String).map { ($0, "\(object["width"] ?? 0)x\(object["height"] ?? 0)") }
            })
            // cat.jpg is 400x300: the command's thumbnail fits it in 20x20.
            #expect(sizes == [cat: "20x15", cat + "?thumbnail": "40x40", cat + "?processed": "50x50"])

            let wrong = try await fixture.magpie("fetch", "-i", "-", "--no-cache", input: "\(cat) --thumbnail\n")
            #expect(wrong.status == 2)
            #expect(wrong.standardError.contains("line 1: --thumbnail needs a value"), "\(wrong.standardError)")
            let unknown = try await fixture.magpie("fetch", "-i", "-", "--no-cache", input: "\(cat)\n\(cat) --output x\n")
            #expect(unknown.standardError.contains("line 2: '--output' is not an option a line may give"), "\(unknown.standardError)")
            let badFit = try await fixture.magpie("fetch", "-i", "-", "--no-cache", input: "\(cat) --fit stretch\n")
            #expect(badFit.standardError.contains("line 1: --fit is one of fit, fill, cover, exact, crop, not 'stretch'"), "\(badFit.standardError)")
            #expect(fixture.server.totalRequests == 3, "nothing is loaded when the list is wrong")
        }
    }

    @Test(arguments: [
        ("resize:64x64,round:x", "--process step 2 'round:x': give the corner radius in pixels"),
        ("resize:64", "--process step 1 'resize:64': give the box as WIDTHxHEIGHT"),
        ("blur:2,,grayscale", "--process step 2 '': the step is empty"),
        ("emboss:1", "--process step 1 'emboss:1': unknown step 'emboss'"),
        ("sharpen:11", "--process step 1 'sharpen:11': sharpen takes a sigma in pixels from 0 (none) to 10"),
        ("crop:10x10:middle", "'middle' is not a gravity"),
        ("resize:10x10:fit:top", "'top' is not fit, fill, cover, exact, crop, upscale or (after fill or crop) a gravity"),
    ])
    func aBadStepIsNamed(_ list: String, _ message: String) async throws {
        try await withCLIFixture { fixture in
            let result = try await fixture.magpie("fetch", fixture.url("/photos/cat.jpg"), "--process", list, "--no-cache")
            #expect(result.status == 2)
            #expect(result.standardError.contains(message), "\(result.standardError)")
            #expect(fixture.server.totalRequests == 0, "nothing is loaded when the list is wrong")
        }
    }

    @Test func variantsOnDiskAreCountedByCacheStats() async throws {
        try await withCLIFixture { fixture in
            let url = fixture.url("/photos/cat.jpg")
            let arguments = ["fetch", "--json", url, "--process", "crop:40x40:attention,grayscale", "--disk-policy", "both", "--cache-dir", fixture.cacheDirectory]
            let first = try await fixture.tool.run(arguments)
            #expect(first.status == 0, "\(first.standardError)")
            let stats = try await fixture.magpie("cache", "stats", "--cache-dir", fixture.cacheDirectory)
            #expect(stats.standardOutput.contains("Originals: 1"), "\(stats.standardOutput)")
            #expect(stats.standardOutput.contains("Variants:  1"), "\(stats.standardOutput)")
            let second = try await fixture.tool.run(arguments)
            #expect(second.standardOutput.contains("\"source\":\"disk\""))
            #expect(second.standardOutput.contains("\"width\":40"))
            #expect(fixture.server.totalRequests == 1)
        }
    }
}
