import Magpie
import MagpieCLI

// A batch job's peak memory: see MallocTunables. The servers keep glibc's defaults, which
// answer a request sooner.
if let command = CommandLine.arguments.dropFirst().first, ["fetch", "prefetch"].contains(command) {
    MallocTunables.restartWithTunables()
}
// Before any other thread allocates: see MallocArenas.
_ = MallocArenas.limit
await MagpieCommand.runAndExit()
