#ifndef MAGPIE_LAUNCH_H
#define MAGPIE_LAUNCH_H

// Nothing to call: linking this target into an executable is what it takes. `restart.c` runs
// from the executable's `.preinit_array` and restarts `magpie fetch` and `magpie prefetch` with
// glibc's allocator tunables; it says why.

#endif
