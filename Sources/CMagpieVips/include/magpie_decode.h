// Decoding to upright RGBA8, with shrink-on-load for thumbnails.
#ifndef MAGPIE_DECODE_H
#define MAGPIE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "magpie_formats.h"
#include "magpie_geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /// Images declaring more pixels are refused before any pixel is decoded; 0 for no limit.
    uint64_t max_pixels;
    /// Above 0: downsample at load time to this box, brought to it as `fit` says (a fill is
    /// centre-cropped); the image is never enlarged.
    int target_width;
    int target_height;
    magpie_fit fit;
    /// The data may be a truncated prefix of a JPEG: whatever decodes is returned (for
    /// progressive previews) instead of failing.
    int partial;
    /// Decode every frame of a GIF or WebP animation (otherwise the first frame only).
    int all_frames;
    /// An animation with more frames, or more pixels in all its frames together, is refused
    /// with MAGPIE_STATUS_ANIMATION_TOO_LARGE before any frame is decoded; 0 for no limit.
    int max_frames;
    uint64_t max_animation_pixels;
    /// Instead of refusing an animation over those limits, decode its first frame.
    int first_frame_when_too_large;
    /// Without a target box: the resize that runs first on the decoded image, a box of
    /// `resize_width` x `resize_height` brought to it as `resize_fit` says; 0 x 0 for none.
    /// A JPEG or WebP still is then decoded at the smallest scale (1/2, 1/4 or 1/8) that still
    /// leaves that resize at least twice its output on each side.
    int resize_width;
    int resize_height;
    magpie_fit resize_fit;
    /// Dots per inch for an SVG sized in physical units (in, cm, pt); 0 for libvips' 72.
    double vector_dpi;
    /// A still with more than 8 bits a sample (a 16-bit PNG or TIFF) is decoded to RGBA with
    /// 16 bits a sample instead of 8 (`magpie_image.sample_bytes` says which it became).
    int keep_high_depth;
} magpie_decode_options;

typedef struct {
    /// The libvips pipeline that produces the pixels when rendered (a VipsImage), or NULL
    /// for an animation, which `frame_plan` renders frame by frame.
    void *handle;
    /// For animations: how each frame's pipeline is made when it is rendered (shim-private).
    void *frame_plan;
    /// The size of one frame.
    int width;
    int height;
    /// Frames stacked top to bottom in the rendered pixels (1 for a still).
    int frames;
    /// Each frame's delay in milliseconds as the file states it (`frames` entries, owned by
    /// the image), or NULL for a still.
    int *delays;
    /// How many times the animation plays; 0 is forever.
    int loop;
    /// For a decode, the file's header; for a processed image, the input's size.
    magpie_header source;
    /// The whole upright image's size when it was decoded at a reduced scale for the resize
    /// that follows (see `resize_width`); 0 x 0 when decoded at its size.
    int full_width;
    int full_height;
    /// Bytes the shim made from the caller's (a GIF given a colour table), which the libvips
    /// pipeline reads while rendering; freed with the image (shim-private).
    void *owned_data;
    /// Bytes a sample in the rendered pixels: 1, or 2 for a decode that kept 16 bits (native
    /// byte order). 0 is read as 1.
    int sample_bytes;
    /// For a still decode: 1 when the file had no alpha, so the pipeline's alpha band is the
    /// opaque one the decode added; and 1 when it had one colour band. What
    /// `magpie_encode_prepared` assumes before it has seen the pixels.
    int added_alpha;
    int grey_source;
} magpie_image;

/// Prepares decoding to upright RGBA8; `magpie_render` produces the pixels.
magpie_status magpie_decode(const void *data, size_t length, const magpie_decode_options *options, magpie_image *image,
                  char *error, size_t error_length);

/// Runs a prepared image (decoded or processed) into `destination`, which must hold
/// width * height * frames * 4 * sample_bytes bytes (frames stacked top to bottom): RGBA, 8 bits
/// per channel (16 where `sample_bytes` is 2), straight alpha, rows packed. Writing
/// into the caller's memory means the bitmap exists once, not once in libvips and once in a copy.
magpie_status magpie_render(magpie_image *image, unsigned char *destination, size_t length, char *error, size_t error_length);

/// Releases what `magpie_decode` or an operation (magpie_process.h) prepared.
void magpie_free_image(magpie_image *image);

#ifdef __cplusplus
}
#endif

#endif
