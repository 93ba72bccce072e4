// What the shim's files share with each other (not part of the Swift-facing API).
#ifndef MAGPIE_SHIM_INTERNAL_H
#define MAGPIE_SHIM_INTERNAL_H

#include <stddef.h>
#include <vips/vips.h>

#include "magpie_formats.h"

/// Copies libvips' error buffer (or `fallback` when empty) into `error` and clears it.
void magpie_take_error(char *error, size_t error_length, const char *fallback);

/// Copies `text` into `error`.
void magpie_set_error(char *error, size_t error_length, const char *text);

/// Opens lazily with the loader for `format`: only the header is read until pixels are asked for.
VipsImage *magpie_open_image(const void *data, size_t length, magpie_format format, VipsAccess access, VipsFailOn fail_on);

/// Whether the bytes are a HEIF image sequence, which libvips 8.14 does not recognise.
int magpie_is_heif_sequence(const unsigned char *data, size_t length);

/// Brings any decoded image to 8-bit sRGB with an alpha band.
int magpie_to_rgba8(VipsImage *in, VipsImage **out);

#endif
