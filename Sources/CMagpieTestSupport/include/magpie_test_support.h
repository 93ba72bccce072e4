// What only tests need: zlib's CRC-32 and deflate, to build valid PNG chunks (decompression
// bombs) without writing a checksum or compressor by hand. Nothing that ships links this.
#ifndef MAGPIE_TEST_SUPPORT_H
#define MAGPIE_TEST_SUPPORT_H
#include <stddef.h>
#include <stdint.h>

uint32_t magpie_crc32(uint32_t crc, const unsigned char *bytes, size_t length);

/// Deflates `length` zero bytes (zlib format) into `output`; returns the compressed size, or
/// 0 if `capacity` is too small.
size_t magpie_deflate_zeros(size_t length, unsigned char *output, size_t capacity);

#endif
