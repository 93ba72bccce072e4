import CMagpieSystem
import Foundation

/// glibc gives each thread that allocates concurrently its own malloc arena (up to eight per
/// core), and each arena keeps up to 64 MB of freed memory before returning any. Bodies and
/// bitmaps of a few megabytes, freed on other threads than the ones that allocated them, leave
/// every arena holding its share: over 1,500 full-size photo loads RSS crept from 330 to 530 MB
/// with no object alive. Two arenas kept it at 150–290 MB at the same speed, which is why
/// libvips' own documentation recommends `MALLOC_ARENA_MAX=2` for servers.
///
/// The limit binds only threads that have not allocated yet, so executables apply it first
/// thing in `main` (``limit``); a pipeline applies it when created, which covers the threads
/// started after it.
package enum MallocArenas {
    /// How many arenas the process is limited to, if this call or the environment limited them.
    package static let limit: Int? = {
        if let setting = ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] { return Int(setting) }
        return magpie_limit_malloc_arenas(2) == 1 ? 2 : nil
    }()
}
