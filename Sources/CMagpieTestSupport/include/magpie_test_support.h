// What only tests and the demo's generated images need: zlib's CRC-32 and deflate, to build
// valid PNG chunks (decompression bombs) without writing a checksum or compressor by hand, and
// text rendered by libvips, to label generated images.
#ifndef MAGPIE_TEST_SUPPORT_H
#define MAGPIE_TEST_SUPPORT_H
#include <stddef.h>
#include <stdint.h>

uint32_t magpie_crc32(uint32_t crc, const unsigned char *bytes, size_t length);

/// Deflates `length` zero bytes (zlib format) into `output`; returns the compressed size, or
/// 0 if `capacity` is too small.
size_t magpie_deflate_zeros(size_t length, unsigned char *output, size_t capacity);

/// Renders `text` (Pango markup allowed) as an 8-bit coverage mask, `height_pixels` tall at
/// most, with the system's sans-serif font; `*width` by `*height` bytes, freed with
/// `magpie_free_text`. libvips must be started (Magpie's `VipsRuntime`). Returns 0 on success.
int magpie_render_text(const char *text, int height_pixels, unsigned char **mask, int *width, int *height, char *error,
                       size_t error_length);

void magpie_free_text(unsigned char *mask);
#endif
