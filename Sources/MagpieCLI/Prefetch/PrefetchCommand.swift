import ArgumentParser
import Foundation
import Magpie
import NIOConcurrencyHelpers

struct PrefetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Download images into the disk cache without decoding them.",
        discussion: """
            URLs already in the cache are skipped. Exit status: 0 when every URL is cached, 1 when some \
            failed, 2 on usage errors.
            """)

    @Argument(help: ArgumentHelp("File of URLs, one per line ('-' for standard input).", valueName: "file"))
    var list: String

    @Option(help: "How many downloads run at once.")
    var concurrency = 4

    @OptionGroup var cache: CacheLocation
    @OptionGroup(title: "Connections") var connection: ConnectionOptions
    @OptionGroup var verbosity: Verbosity

    func validate() throws {
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be between 1 and 64.") }
    }

    func run() async throws {
        let logger = verbosity.bootstrap()
        let texts = try URLList.read(list)
        let console = Console()
        var urls: [URL] = []
        var failed = 0
        for text in texts {
            if let url = URL(string: text) { urls.append(url) } else {
                console.output("error  \(text)  bad URL: not a URL")
                failed += 1
            }
        }
        var configuration = ImagePipeline.Configuration()
        try connection.apply(to: &configuration, environment: ProcessInfo.processInfo.environment)
        configuration.diskCache = DataCache.Configuration(directory: cache.directory)
        configuration.maximumConcurrentDownloads = concurrency
        configuration.logger = logger
        let start = ContinuousClock.now
        let final = await withImagePipeline(configuration: configuration) { pipeline in
            let progress = LiveProgress(console: console, total: urls.count) { pipeline.statistics.bytesDownloaded }
            let prefetcher = ImagePrefetcher(pipeline: pipeline, maximumConcurrent: concurrency) { update in
                console.output(Self.line(for: update))
                progress.itemFinished()
            }
            prefetcher.start(urls)
            await prefetcher.wait()
            progress.finish()
            return (prefetcher.progress, pipeline.statistics.bytesDownloaded)
        }
        let (result, bytes) = final
        failed += result.failed
        console.output(
            "Prefetched \(result.completed) · already cached \(result.skipped) · failed \(failed) · "
                + "\(ByteCount.format(bytes)) in \(String(format: "%.2f", (ContinuousClock.now - start).seconds)) s")
        if failed > 0 { throw ExitCode(ExitStatus.failure) }
    }

    static func line(for update: ImagePrefetcher.Update) -> String {
        let url = update.url.absoluteString
        switch update.outcome {
        case .completed: return "ok     \(url)"
        case .skipped: return "cached \(url)"
        case .failed(let error): return "error  \(url)  \(FailureMessage.text(for: error))"
        }
    }
}
