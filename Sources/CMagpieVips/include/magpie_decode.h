// Decoding to upright RGBA8, with shrink-on-load for thumbnails.
#ifndef MAGPIE_DECODE_H
#define MAGPIE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "magpie_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /// Images declaring more pixels are refused before any pixel is decoded; 0 for no limit.
    uint64_t max_pixels;
    /// Above 0: downsample at load time to fit inside (or with `fill`, to cover and be
    /// centre-cropped to) this box; the image is never enlarged.
    int target_width;
    int target_height;
    int fill;
    /// The data may be a truncated prefix of a JPEG: whatever decodes is returned (for
    /// progressive previews) instead of failing.
    int partial;
} magpie_decode_options;

typedef struct {
    /// The libvips pipeline that produces the pixels when rendered (a VipsImage).
    void *handle;
    int width;
    int height;
    /// For a decode, the file's header; for a processed image, the input's size.
    magpie_header source;
} magpie_image;

/// Prepares decoding to upright RGBA8; `magpie_render` produces the pixels.
magpie_status magpie_decode(const void *data, size_t length, const magpie_decode_options *options, magpie_image *image,
                  char *error, size_t error_length);

/// Runs a prepared image (decoded or processed) into `destination`, which must hold
/// width * height * 4 bytes: RGBA, 8 bits per channel, straight alpha, rows packed. Writing
/// into the caller's memory means the bitmap exists once, not once in libvips and once in a copy.
magpie_status magpie_render(magpie_image *image, unsigned char *destination, size_t length, char *error, size_t error_length);

/// Releases what `magpie_decode` or `magpie_process` prepared.
void magpie_free_image(magpie_image *image);

#ifdef __cplusplus
}
#endif

#endif
