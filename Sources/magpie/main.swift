import Magpie
import MagpieCLI

// Before any other thread allocates: see MallocArenas.
_ = MallocArenas.limit
await MagpieCommand.runAndExit()
