import ArgumentParser
import Foundation
import Logging
import Magpie

/// `--cache-dir`, shared by every command that touches the disk cache.
struct CacheLocation: ParsableArguments {
    @Option(help: ArgumentHelp("Disk cache folder.", discussion: "Default: $XDG_CACHE_HOME/magpie, or ~/.cache/magpie."))
    var cacheDir: String?

    var directory: URL {
        cacheDir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? DataCache.defaultDirectory
    }
}

/// `--verbose`: logs from the pipeline on standard error. Without it nothing but the command's
/// own output is printed, so scripts can read standard output.
struct Verbosity: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print the pipeline's logs on standard error.")
    var verbose = false

    /// Routes swift-log to standard error at the chosen level. Call once, first thing in `run()`.
    func bootstrap() -> Logger {
        let level: Logger.Level = verbose ? .debug : .critical
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "magpie")
    }
}
