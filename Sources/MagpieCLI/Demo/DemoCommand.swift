import ArgumentParser
import Foundation
import Magpie
import MagpieOrigin

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve a generated gallery on loopback and load it through the pipeline, cold then warm.",
        discussion: """
            The first run makes the gallery with libvips (a minute or so) and keeps it in the workspace. \
            Each run starts with an empty disk cache, loads every image at thumbnail size (cold), then \
            again with a new pipeline (disk cache, which keeps the thumbnails as well as the originals) \
            and once more with the same one (memory cache), and writes the thumbnails and an \
            index.html contact sheet. With --proxy it instead serves a page of the gallery through \
            `magpie proxy` (signed srcset URLs, f:auto) until interrupted, for a browser to open.
            """)

    @Option(help: ArgumentHelp("Where the gallery, cache and thumbnails go.", valueName: "dir"))
    var workspace: String = FileManager.default.temporaryDirectory.appendingPathComponent("magpie-demo").path

    @Option(help: ArgumentHelp("Average latency the server adds to each response (each image gets 50–150% of it).", valueName: "ms"))
    var latency = 60

    @Option(help: ArgumentHelp("Thumbnail box.", valueName: "WxH"))
    var thumbnail = "256x256"

    @Option(help: "How many gallery images to use.")
    var images = 240

    @Option(help: ArgumentHelp("Where the thumbnails and index.html go (default: <workspace>/thumbnails).", valueName: "dir"))
    var output: String?

    @Flag(help: "Serve the gallery's page through the image proxy until interrupted, instead of the cold and warm runs.")
    var proxy = false

    @Option(help: "With --proxy: the port of the page and proxy (0 lets the system choose).")
    var port = 0

    @OptionGroup var verbosity: Verbosity

    func validate() throws {
        guard ThumbnailBox.parse(thumbnail) != nil else { throw ValidationError("--thumbnail must look like 256x256, not '\(thumbnail)'.") }
        guard (0...10_000).contains(latency) else { throw ValidationError("--latency must be between 0 and 10000 ms.") }
        guard (1...1000).contains(images) else { throw ValidationError("--images must be between 1 and 1000.") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
    }

    func run() async throws {
        let logger = verbosity.bootstrap()
        let console = Console()
        let root = URL(fileURLWithPath: workspace, isDirectory: true)
        let box = ThumbnailBox.parse(thumbnail)!
        let items = DemoGallery.items(count: images)
        let files = try DemoGallery.prepare(items, in: root.appendingPathComponent("gallery-v\(DemoGallery.version)"), console: console)
        if proxy {
            try await ProxyDemo(items: items, files: files, workspace: root, port: port, latency: latency, logger: logger, console: console).run()
            return
        }

        let server = try await ImageServer.start()
        for (index, file) in files.enumerated() {
            var route = ServedRoute.image(Array(try Data(contentsOf: file)))
            // Spread over 50–150% of the average, the same on every run.
            route.latency = .milliseconds(latency / 2 + index * 37 % (latency + 1))
            server.serve("/gallery/" + file.lastPathComponent, route)
        }
        let urls = files.map { server.url("/gallery/" + $0.lastPathComponent) }
        console.output("Serving \(urls.count) images at http://127.0.0.1:\(server.port)/gallery/ with \(latency) ms average latency.\n")

        let cache = root.appendingPathComponent("cache")
        try? FileManager.default.removeItem(at: cache)
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = .init(directory: cache)
        // The thumbnails themselves go to disk too, so a new pipeline decodes 256 px files
        // instead of the originals.
        configuration.diskCachePolicy = .originalsAndVariants
        configuration.logger = logger

        let cold = try await DemoRun.load(urls, box: box, labels: ["cold: empty caches"], configuration: configuration, console: console)
        let warm = try await DemoRun.load(
            urls, box: box, labels: ["warm: new pipeline, disk cache", "warm: same pipeline, memory cache"],
            configuration: configuration, console: console)
        await server.shutdown()
        let runs = cold + warm
        let sheet = try ContactSheet.write(
            runs[0].images, table: runs, to: output.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? root.appendingPathComponent("thumbnails"))

        console.output("")
        for line in DemoRun.table(runs) { console.output(line) }
        if runs.count == 3, runs.allSatisfy({ $0.duration > .zero }) {
            console.output(String(
                format: "\nThe disk-cache pass (stored thumbnails) was %.0f× faster than the cold one, the memory-cache pass %.0f×.",
                runs[0].duration.seconds / runs[1].duration.seconds, runs[0].duration.seconds / runs[2].duration.seconds))
        }
        let animations = runs[0].images.filter { $0.image.isAnimated }
        if !animations.isEmpty {
            let frames = animations.reduce(0) { $0 + $1.image.frameCount }
            console.output("Animations: \(animations.count), with all \(frames) frames kept; the contact sheet plays them.")
        }
        console.output("Contact sheet: \(sheet.path)")
    }
}
