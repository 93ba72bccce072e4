import Magpie
import MagpieCLI

// `fetch` and `prefetch` have restarted with glibc's allocator tunables before this line, from
// CMagpieLaunch (restart.c), which says why.
// Before any other thread allocates: see MallocArenas.
_ = MallocArenas.limit
await MagpieCommand.runAndExit()
