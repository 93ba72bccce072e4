#ifndef MAGPIE_JPEG_XL_H
#define MAGPIE_JPEG_XL_H

#include <stddef.h>
#include <vips/vips.h>

#include "shim_internal.h"

/// Whether the bytes start as a JPEG XL codestream or container.
int magpie_jxl_is_jxl(const void *data, size_t length);

/// The upright size of a JPEG XL image, from its header alone; MAGPIE_STATUS_FAILED with
/// `error` set when the header is damaged or cut off.
magpie_status magpie_jxl_size(const void *data, size_t length, int *width, int *height, char *error, size_t error_length);

/// Decodes the first frame, upright, into a new 8-bit sRGB image with alpha; NULL with
/// libvips' error set when it cannot.
VipsImage *magpie_jxl_open(const void *data, size_t length);

/// Writes `width` x `height` RGBA8 pixels as JPEG XL (sRGB, with an alpha channel when
/// `keep_alpha`) at a 1-100 quality; `buffer` is freed with g_free.
magpie_status magpie_jxl_save(const unsigned char *pixels, int width, int height, int quality, int keep_alpha, void **buffer, size_t *size,
                              char *error, size_t error_length);

#endif
