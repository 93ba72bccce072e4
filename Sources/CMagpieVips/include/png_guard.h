#ifndef MAGPIE_PNG_GUARD_H
#define MAGPIE_PNG_GUARD_H

#include <stddef.h>

/// Whether `data` starts with the PNG signature.
int magpie_png_is_png(const void *data, size_t length);

/// 0 (with a message) if a chunk claims more bytes than the file has left, or a critical
/// chunk (IHDR, PLTE, IDAT, IEND) fails its CRC.
int magpie_png_chunks_fit(const void *data, size_t length, char *error, size_t error_length);

/// 0 (with a message) if the IDAT stream inflates to more bytes than the IHDR's size and
/// format allow (a decompression bomb; inflating stops as soon as it knows), or is not an
/// intact zlib stream (corrupt deflate data, wrong Adler-32), which libvips' PNG loader
/// would only warn about.
int magpie_png_data_is_sound(const void *data, size_t length, char *error, size_t error_length);

/// Whether the PNG is an APNG: an `acTL` chunk before the first `IDAT`.
int magpie_png_is_animated(const void *data, size_t length);

#endif
