// `magpie fetch` and `magpie prefetch` run with glibc's allocator tunables
// `glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=8388608`.
//
// Why: glibc's allocator serves a block of a few megabytes (a progressive JPEG's coefficients:
// 24 MB for a 12 MP photo's luma) from its heap once a block that size has been freed, and keeps
// what is freed there for the next: the 120-photo `magpie fetch` job peaked at 151-165 MB.
// Mapping every block from 8 MB up on its own and giving it back when freed holds the peak to
// 126-137 MB; faulting those fresh pages in 4 KB at a time would cost about 11% more time, but
// with transparent huge pages for them (the `hugetlb` tunable, which asks the kernel with
// `madvise`) the job takes the time it took before (BENCHMARKS.md). A server answering one
// photo over and over pays for the fresh pages on every request, so the servers keep glibc's
// defaults.
//
// How: glibc reads its tunables only as a process starts, so the process starts itself again
// with them. This runs from the executable's `.preinit_array`: after the dynamic loader has
// mapped the libraries, before any of their constructors, the Swift runtime or `main` (the
// restart costs the loader's work once more, not a whole start-up). An operator who set either
// tunable in `GLIBC_TUNABLES` keeps theirs. Nothing is allocated: the new environment is built
// on the stack, and if the restart fails the process goes on as it was.
//
// Only the `magpie` executable links this file: a program that uses the library is left alone.

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char wanted[] = "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=8388608";
static const char variable[] = "GLIBC_TUNABLES=";

static int is_batch_command(int argc, char **argv) {
    return argc >= 2 && argv[1] && (strcmp(argv[1], "fetch") == 0 || strcmp(argv[1], "prefetch") == 0);
}

static void magpie_restart_with_tunables(int argc, char **argv, char **envp) {
    if (!is_batch_command(argc, argv) || !envp) return;
    size_t count = 0;
    const char *current = NULL;
    for (char **entry = envp; *entry; entry++, count++)
        if (strncmp(*entry, variable, sizeof variable - 1) == 0) current = *entry + sizeof variable - 1;
    if (current && (strstr(current, "glibc.malloc.hugetlb") || strstr(current, "glibc.malloc.mmap_threshold"))) return;

    size_t length = sizeof variable + (current ? strlen(current) + 1 : 0) + sizeof wanted;
    char tunables[length];
    if (current && *current)
        snprintf(tunables, length, "%s%s:%s", variable, current, wanted);
    else
        snprintf(tunables, length, "%s%s", variable, wanted);
    // The environment as it was, its GLIBC_TUNABLES replaced (or added at the end).
    char *environment[count + 2];
    size_t kept = 0;
    for (char **entry = envp; *entry; entry++)
        if (strncmp(*entry, variable, sizeof variable - 1) != 0) environment[kept++] = *entry;
    environment[kept++] = tunables;
    environment[kept] = NULL;
    execve("/proc/self/exe", argv, environment);
    // Not restarted (no /proc): run as started.
}

__attribute__((section(".preinit_array"), used))
static void (*const magpie_preinit)(int, char **, char **) = magpie_restart_with_tunables;
