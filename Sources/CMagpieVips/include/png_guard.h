#ifndef MAGPIE_PNG_GUARD_H
#define MAGPIE_PNG_GUARD_H

#include <stddef.h>

/// Whether `data` starts with the PNG signature.
int magpie_png_is_png(const void *data, size_t length);

/// 0 (with a message) if a chunk claims more bytes than the file has left.
int magpie_png_chunks_fit(const void *data, size_t length, char *error, size_t error_length);

/// 0 (with a message) if the IDAT stream inflates to more bytes than the IHDR's size and
/// format allow: a decompression bomb. Stops inflating as soon as it knows.
int magpie_png_data_fits(const void *data, size_t length, char *error, size_t error_length);

#endif
