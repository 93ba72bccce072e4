#include "magpie_system.h"

// Any C library header defines __GLIBC__ (through features.h) when the C library is glibc.
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void magpie_release_free_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

int magpie_limit_malloc_arenas(int count) {
#if defined(__GLIBC__)
    return mallopt(M_ARENA_MAX, count) == 1;
#else
    (void)count;
    return 0;
#endif
}
