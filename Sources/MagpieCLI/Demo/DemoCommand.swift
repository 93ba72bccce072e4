import ArgumentParser
import Foundation
import Magpie
import MagpieTesting

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve a generated gallery on loopback and load it through the pipeline, cold then warm.")

    @Option(help: "Where the gallery, cache and output go.")
    var workspace: String = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-demo").path

    @Option(help: "Latency the loopback server adds to each response, in milliseconds.")
    var latency: Int = 40

    @Option(help: "Thumbnail box, e.g. 256x256.")
    var thumbnail: String = "256x256"

    func validate() throws {
        guard ThumbnailBox.parse(thumbnail) != nil else { throw ValidationError("--thumbnail must look like 256x256.") }
        guard latency >= 0 else { throw ValidationError("--latency cannot be negative.") }
    }

    func run() async throws {
        let root = URL(fileURLWithPath: workspace)
        let box = ThumbnailBox.parse(thumbnail)!
        print("Preparing the gallery…")
        let files = try DemoGallery.prepare(in: root.appendingPathComponent("gallery"))

        let server = try await ImageServer.start()
        for file in files {
            var route = ServedRoute.image(Array(try Data(contentsOf: file)))
            route.latency = .milliseconds(latency)
            server.serve("/gallery/" + file.lastPathComponent, route)
        }
        let urls = files.map { server.url("/gallery/" + $0.lastPathComponent) }
        print("Serving \(urls.count) images on http://127.0.0.1:\(server.port)/gallery/ with \(latency) ms latency.\n")

        let cache = root.appendingPathComponent("cache")
        try? FileManager.default.removeItem(at: cache)
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = .init(directory: cache)

        let cold = try await DemoRun.load(urls, box: box, labels: ["cold: empty caches"], configuration: configuration)
        let warm = try await DemoRun.load(
            urls, box: box, labels: ["warm: new pipeline, disk cache", "warm: same pipeline, memory cache"],
            configuration: configuration)
        let runs = cold + warm
        let output = root.appendingPathComponent("thumbnails")
        try ContactSheet.write(runs[0].images, to: output)
        await server.shutdown()

        print("\n| run | time | network fetches | memory hits | disk hits | bytes downloaded |")
        print("|---|---|---|---|---|---|")
        for run in runs { print(run.summaryRow) }
        print("\nThumbnails and contact sheet: \(output.appendingPathComponent("index.html").path)")
    }
}
