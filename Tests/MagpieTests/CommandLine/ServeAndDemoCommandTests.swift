import Foundation
import Magpie
import MagpieTesting
import Testing

@Suite("magpie serve and magpie demo")
struct ServeAndDemoCommandTests {
    @Test func serveMakesAFolderLoadable() async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let folder = tool.home.appendingPathComponent("site/avatars")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bytes = try TestImages.texture(width: 120, height: 80, format: .png)
        try Data(bytes).write(to: folder.appendingPathComponent("ada.png"))

        let (process, output) = try tool.start(["serve", tool.home.appendingPathComponent("site").path, "--port", "0", "--latency", "5"])
        defer { if process.isRunning { process.terminate() } }
        // The first line names the address; the process writes it unbuffered once listening.
        var address: String?
        try await waitUntil(timeout: .seconds(30)) {
            let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
            address = text.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("http://127.0.0.1:") }.map(String.init)
            return address != nil
        }
        let base = try #require(address)
        let url = try #require(URL(string: base + "avatars/ada.png"))
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = nil
        let image = try await withImagePipeline(configuration: configuration) { pipeline in
            try await pipeline.image(for: url)
        }
        #expect((image.width, image.height) == (120, 80))

        let exited = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        process.interrupt()
        var status: Int32?
        for await code in exited.stream {
            status = code
            break
        }
        #expect(status == 0, "Ctrl-C stops the server cleanly")
        #expect(String(decoding: try Data(contentsOf: output), as: UTF8.self).contains("Stopped."))
    }

    @Test func demoLoadsTheGalleryColdThenWarmAndWritesAContactSheet() async throws {
        let tool = try MagpieTool.locate()
        defer { tool.cleanUp() }
        let workspace = tool.home.appendingPathComponent("demo")
        let result = try await tool.run(["demo", "--workspace", workspace.path, "--images", "10", "--latency", "0", "--thumbnail", "128x128"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.outputLines
        let cold = try #require(lines.first { $0.hasPrefix("cold: empty caches") })
        let disk = try #require(lines.first { $0.hasPrefix("warm: new pipeline, disk cache") })
        let memory = try #require(lines.first { $0.hasPrefix("warm: same pipeline, memory cache") })
        // Columns, two spaces apart: run, time, network fetches, memory hits, disk hits, downloaded.
        func counts(_ row: String) -> [Int] {
            row.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                .dropFirst(2).prefix(3).compactMap { Int($0) }
        }
        #expect(counts(cold) == [10, 0, 0], "\(cold)")
        #expect(counts(disk) == [0, 0, 10], "\(disk)")
        #expect(counts(memory) == [0, 10, 0], "\(memory)")
        #expect(!cold.hasSuffix(" 0 B"), "the cold run downloads: \(cold)")

        let sheet = workspace.appendingPathComponent("thumbnails")
        let html = try String(contentsOf: sheet.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.components(separatedBy: "<img ").count - 1 == 10)
        let formats = Set(DemoGalleryFormats.sourceFormats(in: html))
        #expect(formats == ["jpeg", "png", "webp", "gif"], "the gallery mixes formats: \(formats)")
        for index in 0..<10 {
            // Image 5 is an animated clip: the sheet shows it as animated WebP.
            let animated = index == 5
            let file = sheet.appendingPathComponent(String(format: "image-%03d.%@", index, animated ? "webp" : "png"))
            let image = try VipsDecoder().decode(Array(try Data(contentsOf: file)), options: DecodingOptions(decodesAllFrames: true))
            #expect(max(image.width, image.height) <= 128)
            #expect(image.isAnimated == animated, "image \(index)")
        }
        #expect(result.standardOutput.contains("Animations: 1, with all 36 frames kept"), "\(result.standardOutput)")

        // The gallery is made once and reused.
        let again = try await tool.run(["demo", "--workspace", workspace.path, "--images", "10", "--latency", "0"])
        #expect(again.status == 0)
        #expect(!again.standardOutput.contains("Making"))
    }
}

/// Reads the source formats back out of the contact sheet's captions.
enum DemoGalleryFormats {
    static func sourceFormats(in html: String) -> [String] {
        // "name · WxH format", then " · N frames" for an animation.
        html.components(separatedBy: "<figcaption>").dropFirst().compactMap { caption in
            caption.components(separatedBy: "</figcaption>").first?.components(separatedBy: " · ").dropFirst().first?
                .split(separator: " ").last.map(String.init)
        }
    }
}
