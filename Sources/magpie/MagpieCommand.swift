import ArgumentParser

@main
struct MagpieCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "magpie",
        abstract: "Load, cache and decode images from URLs with the Magpie pipeline.",
        subcommands: [DemoCommand.self, FetchCommand.self])
}
