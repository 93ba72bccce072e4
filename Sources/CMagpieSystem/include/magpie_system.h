// The few C library calls Magpie needs that Swift's Glibc module does not import.
#ifndef MAGPIE_SYSTEM_H
#define MAGPIE_SYSTEM_H

#ifdef __cplusplus
extern "C" {
#endif

/// Hands memory the allocator keeps in its free lists back to the system (glibc's
/// `malloc_trim(0)`); does nothing with other C libraries.
void magpie_release_free_memory(void);

/// Caps the number of glibc malloc arenas (`mallopt(M_ARENA_MAX, count)`). Returns 1 when
/// applied, 0 with other C libraries or when glibc refuses.
int magpie_limit_malloc_arenas(int count);

/// Reads IPv4 text as the resolver does (`inet_aton`: `127.1`, `0x7f000001`, `2130706433`)
/// into `address`, 4 bytes in network order. Returns 1 when the text is an IPv4 address.
int magpie_parse_ipv4(const char *text, unsigned char address[4]);

#ifdef __cplusplus
}
#endif

#endif
