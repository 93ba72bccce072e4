// Encoding RGBA bitmaps: 8 bits a sample, or 16 for PNG and TIFF.
#ifndef MAGPIE_ENCODE_H
#define MAGPIE_ENCODE_H

#include <stddef.h>

#include "magpie_decode.h"
#include "magpie_formats.h"
#include "magpie_process.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /// PNG, JPEG, WebP or GIF.
    magpie_format format;
    /// 1...100, for lossy formats.
    int quality;
    /// JPEG: write a progressive (interlaced) file.
    int progressive;
    /// WebP: lossless.
    int lossless;
    /// Frames stacked top to bottom in `pixels`, each `width` x `height` (0 or 1 for a still).
    /// WebP and GIF write them all as an animation; PNG and JPEG write the first.
    int frames;
    /// Each frame's delay in milliseconds (`frames` entries), or NULL.
    const int *delays;
    /// How many times the animation plays; 0 is forever.
    int loop;
    /// JPEG: the red, green and blue that transparent pixels are flattened onto.
    double background[3];
    /// When not NULL, the only metadata written: an EXIF Copyright (JPEG, WebP, AVIF; PNG where
    /// libvips writes EXIF), as libvips read it (`magpie_header.copyright`).
    const char *copyright;
    /// Bytes a sample in `pixels`: 1, or 2 (native byte order) for PNG and TIFF stills, which
    /// are then written with 16 bits a sample. 0 is read as 1.
    int sample_bytes;
    /// GIF: libimagequant's effort for the palettes, 1 (fastest) to 10; 0 is libvips' default, 7.
    /// Effort 1 wrote a 36-frame 480x270 clip 7x faster (2.6 s against 19.4 s here).
    int gif_effort;
} magpie_encode_options;

/// Encodes RGBA8 pixels: a still, or an animation in WebP or GIF. JPEG has no alpha: transparent pixels are flattened onto `background`.
/// The output is freed with `magpie_free_buffer`.
magpie_status magpie_encode(const unsigned char *pixels, int width, int height, const magpie_encode_options *options,
                  unsigned char **output, size_t *output_length, char *error, size_t error_length);

/// magpie_render, and for an animation going to WebP or GIF, its encoding as `options` say while
/// it renders: frame n is encoded while frame n + 1 is decoded and processed, instead of every
/// frame waiting for the last. The frame count, delays and loop come from `image`; the rest of
/// `options` as for magpie_encode. `*output` stays NULL when the image is not such an
/// animation, or its encoding failed (only rendered: encode the pixels with magpie_encode,
/// which says why it fails). The output is identical to magpie_encode's of the rendered pixels.
magpie_status magpie_render_encoding(magpie_image *image, unsigned char *destination, size_t length,
                                     const magpie_encode_options *options, unsigned char **output, size_t *output_length,
                                     char *error, size_t error_length);

/// Encodes a still that magpie_decode prepared and nothing has rendered, after `crop` (an area
/// that is not a smart crop's, or NULL), in one libvips pipeline: the
/// decoded pixels go to the encoder with no bitmap between. What the encoder decides from the
/// pixels (an alpha band, one grey band) is assumed from the file and checked as the pixels
/// pass; the output is then identical to magpie_encode's of the rendered and cropped pixels.
/// MAGPIE_STATUS_OK with `*output` set (freed with `magpie_free_buffer`). Otherwise `*output`
/// stays NULL and the caller encodes as usual, which reports what failed:
/// MAGPIE_STATUS_UNSUPPORTED when nothing was read (an animation, 16 bits a sample, alpha in
/// the file, a format encoded outside libvips, a smart crop), so `image` can be rendered;
/// MAGPIE_STATUS_FAILED when the pixels were not as assumed or the pipeline failed, after
/// which a sequential decode cannot be read again and must be made anew.
/// `width` and `height` are set to the size written.
magpie_status magpie_encode_prepared(magpie_image *image, const magpie_crop_area *crop, const magpie_encode_options *options,
                                     unsigned char **output, size_t *output_length, int *width, int *height);

#ifdef __cplusplus
}
#endif

#endif
