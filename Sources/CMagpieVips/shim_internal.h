// What the shim's files share with each other (not part of the Swift-facing API).
//
// One return convention: a function that can fail returns magpie_status with `error` set;
// one that opens an image returns NULL on failure and leaves libvips' error buffer for the
// caller to take; predicates return 1 or 0.
//
// The files call each other in one direction only, from the entry points down
// (`ShimLayeringTests` fails on a loop):
//   render_encoding.c                                   rendering and encoding an animation at once
//   → decode.c, encode.c, encode_prepared.c, image.c,   the Swift-facing API
//     text.c, runtime.c, and the operations: one file
//     an idea (resize.c, crop.c, blur.c, sharpen.c,
//     grayscale.c, adjust.c, canvas.c, orientation.c,
//     pixelate.c, tone.c), each entry point checking
//     its arguments
//     → process.c                                       a bitmap through one operation
//       → frames.c                                      animations, frame by frame
//         → operation.c, render_here.c                  one operation on one frame; rendering on this thread
//           → scale_on_load.c                           geometry, opening at a reduced scale
//             → formats.c                               recognising and opening
//               → png_guard.c, heif_hevc.c, bitmap.c,   format guards and decoders outside libvips
//                 jpeg_xl.c
// gain_map.c (a JPEG's gain map announced, for ImageInfo) stands apart, called from Swift only.
// colour.c, filtering.c, shim_internal.c, gif_frames.c, jpeg_dc.c, jpeg_errors.c,
// webp_frames.c (an animated WebP's frames from libwebp) and frame_progress.c sit at the
// bottom, used from any level.
#ifndef MAGPIE_SHIM_INTERNAL_H
#define MAGPIE_SHIM_INTERNAL_H

#include <stddef.h>
#include <vips/vips.h>

#include "frame_progress.h"
#include "magpie_decode.h"
#include "magpie_encode.h"
#include "magpie_formats.h"
#include "magpie_process.h"

/// Whether the format is a HEIF container (HEIC or AVIF), which libheif reads.
static inline int magpie_is_heif(magpie_format format) {
    return format == MAGPIE_FORMAT_HEIF || format == MAGPIE_FORMAT_AVIF;
}

/// Whether the format is one bitmap.c decodes (BMP, ICO), which libvips does not.
static inline int magpie_is_bitmap(magpie_format format) {
    return format == MAGPIE_FORMAT_BMP || format == MAGPIE_FORMAT_ICO;
}

/// Whether a decoder outside libvips reads the format whole (BMP, ICO, JPEG XL): libvips
/// neither recognises nor thumbnails its bytes.
static inline int magpie_is_decoded_outside_libvips(magpie_format format) {
    return magpie_is_bitmap(format) || format == MAGPIE_FORMAT_JXL;
}

/// Copies libvips' error buffer (or `fallback` when empty) into `error` and clears it.
void magpie_take_error(char *error, size_t error_length, const char *fallback);

/// Copies `text` into `error`.
void magpie_set_error(char *error, size_t error_length, const char *text);

/// Opens with the loader for `format`, lazily (only the header is read until pixels are asked
/// for) except for HEVC-coded HEIF, which the system's libheif decodes here.
VipsImage *magpie_open_image(const void *data, size_t length, magpie_format format, VipsAccess access, VipsFailOn fail_on,
                             double vector_dpi);

/// Opens a JPEG decoded at 1/`shrink` of its size (libjpeg's scaled IDCT).
VipsImage *magpie_open_shrunk_jpeg(const void *data, size_t length, int shrink, VipsAccess access, VipsFailOn fail_on);


/// The largest of 8, 4 and 2 that is at most `allowed` and leaves no side empty; 1 for none:
/// the scales libjpeg decodes at (and that Magpie asks of libwebp).
int magpie_shrink_factor(const magpie_header *source, double allowed);

/// Turns the scales that would bring each side to the box (`horizontal`, `vertical`) into the
/// ones `fit` uses: the smaller of the two for a fit, the larger to fill or cover, each its own
/// when exact.
void magpie_fit_scales(magpie_fit fit, double *horizontal, double *vertical);

/// Opens a still at a reduced scale for the resize that `options` says follows, when its format
/// has one that leaves that resize at least twice its output on each side: a JPEG or WebP at
/// 1/2, 1/4 or 1/8. Sets `full_width` x `full_height` to the whole upright image's size; NULL
/// (and nothing set) when no reduced scale applies.
VipsImage *magpie_open_for_resize(const void *data, size_t length, const magpie_header *source,
                                  const magpie_decode_options *options, VipsAccess access, VipsFailOn fail_on,
                                  int *full_width, int *full_height);

/// Whether the bytes are a HEIF image sequence, which libvips 8.14 does not recognise.
int magpie_is_heif_sequence(const unsigned char *data, size_t length);

/// GIF image blocks whose data is complete (a truncated file's last frame is not).
int magpie_gif_complete_frames(const unsigned char *data, size_t length);
/// The same count; `partial_first_frame` is set when the first image block's data runs past the
/// end of the file after some of it arrived, and the frame lies inside the logical screen.
int magpie_gif_scan(const unsigned char *data, size_t length, int *partial_first_frame);
/// A copy of a GIF that has no global colour table, with a table of 256 greys inserted, so
/// frames without a table of their own show as Pillow shows them (libnsgif draws every index
/// but 1 black); NULL when the GIF has a global table. Free with g_free.
unsigned char *magpie_gif_with_default_palette(const unsigned char *data, size_t length, size_t *patched_length);

/// `rows` rows of `width` RGBA8 pixels in the caller's memory as an sRGB libvips image (no
/// copy: the memory must outlive the image); NULL when libvips refuses.
VipsImage *magpie_wrap_rgba(const unsigned char *pixels, int width, int rows);
/// The same for RGBA with 16 bits a sample (native byte order), as RGB16.
VipsImage *magpie_wrap_rgba16(const unsigned char *pixels, int width, int rows);

/// Brings any decoded image to 8-bit sRGB with an alpha band.
magpie_status magpie_to_rgba8(VipsImage *in, VipsImage **out, char *error, size_t error_length);
/// Whether `image` has more than 8 bits a sample (a 16-bit PNG or TIFF).
int magpie_is_deep(VipsImage *image);
/// As magpie_to_rgba8, but a source with more than 8 bits a sample (a 16-bit PNG or TIFF)
/// becomes RGBA with 16 bits a sample (RGB16); `*sample_bytes` says which it became, 1 or 2.
magpie_status magpie_to_rgba_keeping_depth(VipsImage *in, VipsImage **out, int *sample_bytes, char *error, size_t error_length);

/// Where a gravity crop put its box: the frames of an animation are cropped where the first
/// frame was, so a smart crop cannot make them jump around.
typedef struct {
    int known;
    int left;
    int top;
} magpie_crop_box;

/// What one operation does to a still or one frame (`rgba`, RGBA of 8 or 16 bits a sample):
/// `arguments` is the operation's own struct; `opaque` says whether every pixel has full alpha;
/// a crop by gravity reads and sets `box`. Returns 0, or -1 with libvips' error buffer set.
typedef int (*magpie_operation_apply)(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out);

/// An operation with its arguments, as the frame plan keeps it (it copies the `size` bytes of
/// `arguments`). `keeps_depth`: it works on 16 bits a sample as on 8.
typedef struct {
    magpie_operation_apply apply;
    const void *arguments;
    size_t size;
    int keeps_depth;
} magpie_operation;

/// Runs `operation` on one still or frame (operation.c), taking libvips' error when it fails.
magpie_status magpie_apply_operation(VipsImage *rgba, int opaque, const magpie_operation *operation, magpie_crop_box *box,
                                     VipsImage **out, char *error, size_t error_length);

/// Prepares `operation` on `bitmap` into `result` (process.c): each operation's entry point
/// checks its arguments, then hands itself here.
magpie_status magpie_process_bitmap(const magpie_bitmap *bitmap, const magpie_operation *operation, magpie_image *result,
                                    char *error, size_t error_length);

/// Copies `text` into `error` and returns MAGPIE_STATUS_FAILED: an operation refusing its
/// arguments.
magpie_status magpie_refuse(char *error, size_t error_length, const char *text);

/// A resize to `box` as an operation (resize.c), for the decoder's animated thumbnails; `box`
/// must outlive the returned value's use.
magpie_operation magpie_resize_operation(const magpie_resize_box *box);

/// Whether `area` can be cut from a `width` x `height` image (crop.c); otherwise `text` says why.
int magpie_crop_fits(const magpie_crop_area *area, int width, int height, char *text, size_t length);
/// Cuts `width` x `height` (each at most the image's side) placed by `gravity`; a `box` already
/// known (an animation's later frames) is used as it is, otherwise set to where the cut went.
int magpie_crop_by_gravity(VipsImage *in, int width, int height, magpie_gravity gravity, magpie_crop_box *box, VipsImage **out);
/// The crop of `area` as an operation's step, for the one-pass encoder.
int magpie_crop_apply(VipsImage *rgba, int opaque, const void *area, magpie_crop_box *box, VipsImage **out);

/// libvips' Gaussian blur of `sigma` at full size (blur.c), with masks made once per sigma.
int magpie_exact_gaussian_blur(VipsImage *in, double sigma, VipsImage **out);

// Filtering helpers (filtering.c), shared by the operations that resample, blur or blend.

/// Drops the reference `*current` holds and makes it `next`: every step takes a
/// reference-counted image and gives a new one.
void magpie_replace(VipsImage **current, VipsImage *next);
/// Whether a bitmap holds 16 bits a sample (RGB16); otherwise 8.
int magpie_is_sixteen(VipsImage *rgba);
/// The opaque alpha level of a bitmap of that depth: 65535 or 255.
double magpie_max_alpha(int sixteen);
/// A colour given 0...255 a component, for a bitmap of `rgba`'s depth: widened for 16 bits a
/// sample as libvips widens 8 bits, times 257.
VipsArrayDouble *magpie_colour_for(VipsImage *rgba, const double *colour, int bands);
/// Opaque images are worked on as RGB (a quarter less work); transparent ones premultiplied,
/// because resampling or blurring straight alpha lets the colour of invisible pixels bleed into
/// visible edges as a dark fringe.
int magpie_prepare_for_filtering(VipsImage *rgba, int opaque, VipsImage **out);
/// Back to the bitmap's form: `sixteen` says whether it held 16 bits a sample.
int magpie_finish_filtering(VipsImage *in, int opaque, int sixteen, VipsImage **out);

/// Prepares `image` to render the `frames` frames stacked in `strip` one at a time, each
/// through `operation` (NULL: as they are). `pixels` is the strip's memory when the frames are
/// already decoded (processing), NULL when `strip` decodes them; `webp`, when not NULL, decodes
/// them instead of `strip`, and the plan owns it (even when planning fails). `opaque` is 1 or 0 when
/// known for all frames, -1 to look at each frame once decoded. The first frame's pipeline is
/// built here, which sizes the output, checks the options and fixes any crop box for the
/// rest.
typedef struct magpie_webp_frames magpie_webp_frames;
magpie_status magpie_plan_frames(VipsImage *strip, const unsigned char *pixels, magpie_webp_frames *webp, int frames, int opaque,
                       const magpie_operation *operation, magpie_image *image, char *error, size_t error_length);

/// Renders a planned animation, frame after frame, into `destination`.
magpie_status magpie_render_frames(magpie_image *image, unsigned char *destination, size_t length, char *error,
                                   size_t error_length);

/// Releases a frame plan.
void magpie_free_frames(magpie_image *image);

/// Has a planned animation's render tell `progress` of each frame it finishes (nothing for a
/// still, which has no plan).
void magpie_frames_follow(magpie_image *image, magpie_frame_progress *progress);

/// magpie_encode's work on pixels libvips already has as `image` (`width` x `height` a frame,
/// `options->frames` frames stacked): `pixels` is read only for the first frame (whether it is
/// opaque or grey), and for the formats encoded outside libvips (HEIF, JPEG XL: stills).
magpie_status magpie_encode_image(VipsImage *image, const unsigned char *pixels, int width, int height,
                                  const magpie_encode_options *options, unsigned char **output, size_t *output_length,
                                  char *error, size_t error_length);

/// magpie_encode_image with whether the first frame is `opaque` and `grey` already known;
/// `pixels` is then read only by the formats encoded outside libvips, and may be NULL for the
/// others.
magpie_status magpie_encode_decided(VipsImage *image, const unsigned char *pixels, int width, int height, int opaque, int grey,
                                    const magpie_encode_options *options, unsigned char **output, size_t *output_length,
                                    char *error, size_t error_length);

/// Computes all of `image` on the calling thread into `destination` (rows packed).
magpie_status magpie_render_here(VipsImage *image, unsigned char *destination, char *error, size_t error_length);

#endif
