public import ArgumentParser
import Foundation
import Magpie

/// The `magpie` command: load, cache and decode images from the shell.
public struct MagpieCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "magpie",
        abstract: "Load, cache and decode images from URLs with the Magpie pipeline.",
        discussion: """
            Exit status: 0 when everything succeeded, 1 when some images failed, 2 on usage errors.
            """,
        subcommands: [
            FetchCommand.self, PrefetchCommand.self, CacheCommand.self, ServeCommand.self, ProxyCommand.self, HealthCommand.self,
            DemoCommand.self,
        ])

    @Flag(name: .long, help: "Print Magpie's version and the libvips it runs on (its speed depends on it), and exit.")
    var version = false

    public init() {}

    public mutating func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print("magpie \(MagpieVersion.current), \(Libvips.summary)")
    }

    /// Parses the arguments, runs the chosen command and exits. Usage errors exit with 2 (the
    /// shell convention, as grep and curl do) rather than argument-parser's 64.
    public static func runAndExit(_ arguments: [String]? = nil) async -> Never {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Foundation.exit(ExitStatus.success)
        } catch {
            let code = exitCode(for: error)
            guard code == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(ExitStatus.usage)
        }
    }
}

/// The exit statuses every subcommand uses.
enum ExitStatus {
    /// Everything succeeded.
    static let success: Int32 = 0
    /// Some items failed, or the command could not do its work (for example an unwritable folder).
    static let failure: Int32 = 1
    /// The command line was wrong.
    static let usage: Int32 = 2
}
