// Private to the shim.
#ifndef MAGPIE_PNG_GUARD_H
#define MAGPIE_PNG_GUARD_H

#include <stddef.h>

#include "magpie_runtime.h"

/// Whether `data` starts with the PNG signature.
int magpie_png_is_png(const void *data, size_t length);

/// Fails (with a message) if a chunk claims more bytes than the file has left, or a critical
/// chunk (IHDR, PLTE, IDAT, IEND) fails its CRC.
magpie_status magpie_png_check_chunks(const void *data, size_t length, char *error, size_t error_length);

/// Fails (with a message) if the IDAT stream inflates to more bytes than the IHDR's size and
/// format allow (a decompression bomb; inflating stops as soon as it knows), or is not an
/// intact zlib stream (corrupt deflate data, wrong Adler-32), which libvips' PNG loader
/// would only warn about.
magpie_status magpie_png_check_data(const void *data, size_t length, char *error, size_t error_length);

/// Whether the PNG is an APNG: an `acTL` chunk before the first `IDAT`.
int magpie_png_is_animated(const void *data, size_t length);

#endif
