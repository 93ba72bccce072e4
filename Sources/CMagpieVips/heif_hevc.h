#ifndef MAGPIE_HEIF_HEVC_H
#define MAGPIE_HEIF_HEVC_H

#include <stddef.h>
#include <vips/vips.h>

#include "shim_internal.h"

/// Whether the bytes are a HEIF file coded with HEVC (HEIC), going by its brands; AVIF is not.
int magpie_heif_is_hevc(const void *data, size_t length);

/// Decodes the primary image of an HEVC-coded HEIF with the system's libheif, into a new 8-bit
/// sRGB (with alpha when it has one) image with its ICC profile, rotated, mirrored and cropped
/// as the file says; NULL with `error` set when libheif fails.
VipsImage *magpie_heif_hevc_open(const void *data, size_t length, char *error, size_t error_length);

/// Writes `width` x `height` RGBA8 pixels as an HEVC-coded HEIF (HEIC) with the system's
/// libheif and its x265 encoder, with an alpha plane when `keep_alpha`; `buffer` is freed with
/// g_free. MAGPIE_STATUS_UNSUPPORTED when libheif has no HEVC encoder.
magpie_status magpie_heif_hevc_save(const unsigned char *pixels, int width, int height, int quality, int keep_alpha, void **buffer,
                                    size_t *size, char *error, size_t error_length);

#endif
