#ifndef MAGPIE_BITMAP_H
#define MAGPIE_BITMAP_H

#include <stddef.h>
#include <vips/vips.h>

#include "shim_internal.h"

/// Whether the bytes start as a Windows bitmap file (`BM`).
int magpie_bmp_is_bmp(const void *data, size_t length);

/// Whether the bytes start as an icon directory (reserved 0, type 1, at least one entry).
int magpie_ico_is_ico(const void *data, size_t length);

/// The size of a BMP, or of the icon an ICO is read as (its largest entry), from the headers
/// alone; MAGPIE_STATUS_FAILED with `error` set when they do not describe an image.
magpie_status magpie_bitmap_size(const void *data, size_t length, magpie_format format, int *width, int *height,
                                 char *error, size_t error_length);

/// Decodes a BMP, or an ICO's largest entry, into a new 8-bit sRGB image with alpha; NULL with
/// libvips' error set when it cannot. The bytes must outlive the image (a PNG entry is read in
/// place).
VipsImage *magpie_bitmap_open(const void *data, size_t length, magpie_format format);

/// Writes 8-bit RGBA as a BMP: 24 bits a pixel when every pixel is opaque, else 32 with an
/// alpha mask. `buffer` is freed with g_free.
magpie_status magpie_bmp_save(VipsImage *rgba, void **buffer, size_t *size, char *error, size_t error_length);

/// Writes 8-bit RGBA as an ICO holding one PNG entry, scaled down first to fit the 256 x 256 an
/// icon entry can declare. `buffer` is freed with g_free.
magpie_status magpie_ico_save(VipsImage *rgba, void **buffer, size_t *size, char *error, size_t error_length);

#endif
