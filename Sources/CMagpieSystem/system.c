#include "magpie_system.h"

// Any C library header defines __GLIBC__ (through features.h) when the C library is glibc.
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

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

int magpie_parse_ipv4(const char *text, unsigned char address[4]) {
    struct in_addr parsed;
    if (inet_aton(text, &parsed) == 0) return 0;
    memcpy(address, &parsed.s_addr, 4);
    return 1;
}
