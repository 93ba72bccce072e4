import ArgumentParser
import Foundation
import Magpie
import NIOConcurrencyHelpers

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images through the pipeline, optionally writing them to a folder.",
        discussion: """
            Each URL gets one line (or one JSON object with --json); a summary follows. On a terminal a \
            progress bar shows count, bytes, rate and time left.
            Exit status: 0 when every image loaded, 1 when some failed, 2 on usage errors.
            """)

    @Argument(help: "Image URLs (http or https).")
    var urls: [String] = []

    @Option(name: [.customShort("i"), .customLong("input")], help: ArgumentHelp("Also read URLs from a file, one per line ('-' for standard input). A line may give its own \(FetchItem.lineOptions) after the URL, which replace the command's for it.", valueName: "file"))
    var input: String?

    @Option(help: ArgumentHelp("Write each image to this folder as <name>.<format>.", valueName: "dir"))
    var output: String?

    @Option(help: ArgumentHelp("Format of written images (default: original; with --thumbnail or --process, png, or webp for an animation). WebP and GIF keep every frame of an animation.", valueName: (ImageFormat.encodable.map(\.rawValue) + ["original"]).joined(separator: "|")))
    var format: OutputFormat?

    @Flag(help: "Decode only the first frame of animated GIF and WebP images.")
    var firstFrame = false

    @Option(help: ArgumentHelp("Decode at thumbnail size, e.g. 256x256.", valueName: "WxH"))
    var thumbnail: String?

    @Option(help: ArgumentHelp("How the thumbnail meets its box: fit inside it, fill it and crop the overflow, cover it, stretch to it (exact), or cut it from the centre (crop).", valueName: Fit.allCases.map(\.rawValue).joined(separator: "|")), transform: Fit.argument)
    var fit: Fit = .fit

    @Option(help: ArgumentHelp("Process each image after decoding, e.g. resize:256x256:fill,round:16. Steps: \(ProcessingList.help).", valueName: "steps"))
    var process: String?

    @Option(help: ArgumentHelp("What the disk cache keeps: the downloaded originals, processed variants, or both.", valueName: "originals|variants|both"))
    var diskPolicy: DiskPolicyOption = .originals

    @Option(help: "How many images load at once.")
    var concurrency = 8

    @Option(help: ArgumentHelp("Memory decodes in progress may hold together, from each image's header (progressive JPEGs hold every coefficient); a larger image is decoded alone.", valueName: "MB"))
    var decodeMemoryMB = 256

    @Flag(help: "Try URLs even if they failed recently.")
    var retryFailed = false

    @Flag(help: "Revalidate cached images with the server (If-None-Match / If-Modified-Since).")
    var refresh = false

    @Flag(help: "Do not read or write the disk cache.")
    var noCache = false

    @Flag(help: "Print one JSON object per URL instead of text (the summary goes to standard error).")
    var json = false

    // Each image is written out and dropped, so memory only serves a URL listed twice; a
    // server's default (up to 768 MB) would only make a long list hold on to what it wrote.
    @Option(help: ArgumentHelp("Memory cache size for images listed more than once, e.g. 64MB (0 turns it off).", valueName: "size"))
    var memoryCache = "64MB"

    @OptionGroup var cache: CacheLocation
    @OptionGroup(title: "Connections") var connection: ConnectionOptions
    @OptionGroup var verbosity: Verbosity

    func validate() throws {
        if let thumbnail, ThumbnailBox.parse(thumbnail) == nil {
            throw ValidationError("--thumbnail must be WIDTHxHEIGHT with sizes from 1 to 20000, e.g. 256x256, not '\(thumbnail)'.")
        }
        if format == .original, thumbnail != nil || process != nil {
            throw ValidationError("--format original writes the downloaded bytes, so it cannot be combined with --thumbnail or --process; choose png, jpeg or webp.")
        }
        if let process {
            do {
                _ = try ProcessingList.parse(process)
            } catch {
                throw ValidationError(error.description)
            }
        }
        if format != nil, output == nil {
            throw ValidationError("--format needs --output: it says how images are written.")
        }
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 256.") }
        guard decodeMemoryMB > 0 else { throw ValidationError("--decode-memory-mb must be positive.") }
        if noCache, cache.cacheDir != nil { throw ValidationError("--no-cache and --cache-dir cannot be used together.") }
        if ByteCount.parse(memoryCache) == nil {
            throw ValidationError("--memory-cache must be a size such as 64MB or 0, not '\(memoryCache)'.")
        }
        if urls.isEmpty, input == nil { throw ValidationError("Give at least one URL, or a list with -i FILE (or -i - for standard input).") }
    }

    func run() async throws {
        let logger = verbosity.bootstrap()
        let listed = try input.map(URLList.read) ?? []
        var items = urls.map { FetchItem(url: $0, work: nil) }
        do {
            for (index, line) in listed.enumerated() { items.append(try FetchItem.parse(line: line, number: index + 1)) }
        } catch {
            throw ValidationError("In the list \(input ?? ""): \(error.description).")
        }
        guard !items.isEmpty else { throw ValidationError("The URL list is empty.") }
        if format == .original, items.contains(where: { $0.work?.changesPixels == true }) {
            throw ValidationError("--format original writes the downloaded bytes, so no line of the list can give --thumbnail or --process; choose png, jpeg or webp.")
        }
        let console = Console()
        let folder: OutputFolder?
        do {
            folder = try output.map { path throws(OutputFolderError) in try OutputFolder(path: path) }
        } catch {
            console.message("error: \(error)")
            throw ExitCode(ExitStatus.failure)
        }

        var configuration = ImagePipeline.Configuration()
        try connection.apply(to: &configuration, environment: ProcessInfo.processInfo.environment)
        configuration.diskCache = noCache ? nil : DataCache.Configuration(directory: cache.directory)
        configuration.maximumConcurrentDownloads = concurrency
        configuration.decodeMemoryBudget = decodeMemoryMB * 1_000_000
        // A batch job keeps every core busy: one decode more than there are cores, so a core whose
        // decode stalls (fresh pages faulted in, a libvips lock) has another to run. 120 photo
        // thumbnails on 2 cores: 9% less time for 4% more peak memory (BENCHMARKS.md).
        configuration.decodingThreads = Processors.available + 1
        configuration.memoryCache = ByteCount.parse(memoryCache).flatMap { $0 > 0 ? ImageCache.Limits(totalCost: $0) : nil }
        configuration.logger = logger
        configuration.diskCachePolicy = diskPolicy.policy
        var options: ImageRequest.Options = []
        if retryFailed { options.insert(.retryFailed) }
        if refresh { options.insert(.refreshCached) }
        if firstFrame { options.insert(.firstFrameOnly) }
        let job = FetchJob(
            pipeline: ImagePipeline(configuration: configuration),
            work: FetchWork(
                thumbnail: thumbnail.flatMap { ThumbnailBox.parse($0, fit: fit) },
                processors: (try? process.map(ProcessingList.parse)) ?? []),
            format: output == nil ? .encoded(.png) : format ?? (thumbnail == nil && process == nil ? .original : .encoded(.png)),
            animationsAsWebP: format == nil, options: options, folder: folder, received: NIOLockedValueBox(0))
        let summary = await fetch(items, with: job, console: console)
        await job.pipeline.shutdown()

        for line in summary.lines { json ? console.message(line) : console.output(line) }
        if summary.failed > 0 { throw ExitCode(ExitStatus.failure) }
    }

    private func fetch(_ items: [FetchItem], with job: FetchJob, console: Console) async -> FetchSummary {
        let received = job.received
        let names = OutputFolder.baseNames(for: items.map { URL(string: $0.url) })
        let progress = LiveProgress(console: console, total: items.count) { received.withLockedValue { $0 } }
        let start = ContinuousClock.now
        var summary = FetchSummary()
        await withTaskGroup(of: FetchResult.self) { group in
            var pending = zip(items, names).makeIterator()
            for _ in 0..<concurrency {
                guard let (item, name) = pending.next() else { break }
                group.addTask { await job.run(item, name: name) }
            }
            for await result in group {
                summary.results.append(result)
                console.output(json ? result.jsonLine : result.plainLine)
                progress.itemFinished()
                if let (item, name) = pending.next() { group.addTask { await job.run(item, name: name) } }
            }
        }
        progress.finish()
        summary.elapsed = ContinuousClock.now - start
        summary.coalesced = job.pipeline.statistics.coalesced
        summary.bytesReceived = received.withLockedValue { $0 }
        return summary
    }
}
