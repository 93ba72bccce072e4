#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator serves a block of a few megabytes (a progressive JPEG's coefficients: 24 MB
/// for a 12 MP photo's luma) from its heap once a block that size has been freed, and keeps what
/// is freed there for the next: the 120-photo `magpie fetch` job peaked at 151–165 MB. Mapping
/// every block from 8 MB up on its own and giving it back when freed holds the peak to 126–137
/// MB; faulting those fresh pages in 4 KB at a time would cost about 11% more time, but with
/// transparent huge pages for them (glibc's `hugetlb` tunable, which asks the kernel with
/// `madvise`) the job takes the time it took before (BENCHMARKS.md). A server answering one
/// photo over and over pays for the fresh pages on every request (5–8% fewer requests a second
/// in one round), so `magpie` asks for this in its batch commands only.
///
/// glibc reads its tunables only as a process starts, so an executable that wants them starts
/// itself again with them (``restartWithTunables()``, about 20 ms), first thing in `main`. An
/// operator who set either tunable in `GLIBC_TUNABLES` keeps theirs.
package enum MallocTunables {
    /// What Magpie's executables run with.
    package static let wanted = "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=8388608"

    /// Replaces this process with the same executable and arguments, `wanted` added to
    /// `GLIBC_TUNABLES`, unless they are set already (as they are in the process started so).
    /// Returns, changing nothing, where the C library is not glibc or the executable cannot be
    /// started again (no `/proc`).
    package static func restartWithTunables() {
        #if canImport(Glibc)
        let current = getenv("GLIBC_TUNABLES").map { String(cString: $0) } ?? ""
        guard !current.contains("glibc.malloc.hugetlb"), !current.contains("glibc.malloc.mmap_threshold") else { return }
        setenv("GLIBC_TUNABLES", current.isEmpty ? wanted : "\(current):\(wanted)", 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // Not restarted: leave the environment as the process found it, for its children.
        if current.isEmpty { unsetenv("GLIBC_TUNABLES") } else { setenv("GLIBC_TUNABLES", current, 1) }
        #endif
    }
}
