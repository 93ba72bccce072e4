// Image processing on RGBA8 bitmaps, for Swift's built-in processors.
#ifndef MAGPIE_PROCESS_H
#define MAGPIE_PROCESS_H

#include <stddef.h>
#include <stdint.h>

#include "magpie_decode.h"
#include "magpie_geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The bitmap an operation works on: RGBA (straight alpha), `frames` frames of `width` x
/// `height` stacked top to bottom (1 for a still), `sample_bytes` bytes a sample: 1, or 2 for a
/// still with 16 bits a sample (native byte order), which only the geometry operations (resize,
/// crop, embed, rotate, flip) and flatten keep; 0 is read as 1. The pixels must stay alive until
/// the result is rendered with `magpie_render` and freed with `magpie_free_image`.
///
/// Every operation below prepares its result in `result` and returns MAGPIE_STATUS_OK, or
/// MAGPIE_STATUS_FAILED with `error` saying why (arguments out of range, or libvips failing).
/// Each frame is processed on its own with the first frame's geometry (a smart crop's box is
/// chosen on the first frame). Images with transparency are resampled and blurred
/// premultiplied, so edges do not darken; opaque ones are processed without their alpha band.
/// Arrays an operation is given (tables, matrices) must stay alive as the pixels do.
typedef struct {
    const unsigned char *pixels;
    int width;
    int height;
    int frames;
    int sample_bytes;
} magpie_bitmap;

/// The box a resize brings an image to.
typedef struct {
    int width;
    int height;
    /// How the image meets the box (a fill is cropped by `gravity`).
    magpie_fit fit;
    magpie_gravity gravity;
    /// Whether an image smaller than the box is enlarged.
    int upscale;
    /// The whole image's size when the bitmap holds it decoded at a reduced scale
    /// (`magpie_image.full_width`), 0 x 0 otherwise. The output is sized from it, so it is the
    /// size a resize of the whole image gives.
    int full_width;
    int full_height;
    /// With `window_width` and `window_height` above 0, an exact resize keeps only this window
    /// of its output, its top-left corner at (`window_x`, `window_y`), in the same pipeline, so
    /// only the kept pixels are resampled. It must lie inside the box.
    int window_x;
    int window_y;
    int window_width;
    int window_height;
} magpie_resize_box;

/// The part of an image a crop keeps: `width` x `height` at (`x`, `y`), which must lie inside
/// the image, or, with `by_gravity`, that size (each side at most the image's) placed by
/// `gravity`.
typedef struct {
    int width;
    int height;
    int x;
    int y;
    int by_gravity;
    magpie_gravity gravity;
} magpie_crop_area;

/// Resamples to the box with a Lanczos-3 kernel (a box average first for large reductions).
magpie_status magpie_resize(const magpie_bitmap *bitmap, const magpie_resize_box *box, magpie_image *result, char *error,
                            size_t error_length);
/// Keeps `area`.
magpie_status magpie_crop(const magpie_bitmap *bitmap, const magpie_crop_area *area, magpie_image *result, char *error,
                          size_t error_length);
/// A Gaussian blur of standard deviation `sigma` pixels, above 0 and at most 1000.
magpie_status magpie_blur(const magpie_bitmap *bitmap, double sigma, magpie_image *result, char *error, size_t error_length);
/// Linear-light luminance (Rec. 709 weights) as sRGB grey; transparency kept.
magpie_status magpie_grayscale(const magpie_bitmap *bitmap, magpie_image *result, char *error, size_t error_length);
/// libvips' sharpen on lightness alone, a mask of `sigma` pixels (above 0, at most 10).
magpie_status magpie_sharpen(const magpie_bitmap *bitmap, double sigma, magpie_image *result, char *error,
                             size_t error_length);
/// Unsharp mask on every colour band: the image plus `amount` (0...10) times its difference from
/// a Gaussian blur of `sigma` (above 0, at most 10).
magpie_status magpie_unsharp(const magpie_bitmap *bitmap, double sigma, double amount, magpie_image *result, char *error,
                             size_t error_length);
/// Places the image with its top-left corner at (`x`, `y`) on a canvas of `width` x `height`
/// that holds it whole, of the colour `background` (red, green, blue, alpha, 0...255 each).
magpie_status magpie_embed(const magpie_bitmap *bitmap, int width, int height, int x, int y, const double background[4],
                           magpie_image *result, char *error, size_t error_length);
/// Turns the image clockwise by 90, 180 or 270 degrees.
magpie_status magpie_rotate(const magpie_bitmap *bitmap, int degrees, magpie_image *result, char *error, size_t error_length);
/// Mirrors the image left to right and/or top to bottom.
magpie_status magpie_flip(const magpie_bitmap *bitmap, int horizontal, int vertical, magpie_image *result, char *error,
                          size_t error_length);
/// Averages blocks of `size` x `size` pixels, at least 2.
magpie_status magpie_pixelate(const magpie_bitmap *bitmap, int size, magpie_image *result, char *error, size_t error_length);
/// Composites the image over the opaque colour `colour` (red, green, blue, 0...255 each).
magpie_status magpie_flatten(const magpie_bitmap *bitmap, const double colour[3], magpie_image *result, char *error,
                             size_t error_length);
/// Brightness (levels added, -255...255), contrast (the distance from mid-grey multiplied,
/// 0...10) and saturation (the distance from each pixel's Rec. 709 grey multiplied, 0...10).
magpie_status magpie_adjust(const magpie_bitmap *bitmap, double brightness, double contrast, double saturation,
                            magpie_image *result, char *error, size_t error_length);
/// Each colour band times `scale[band]` plus `offset[band]`.
magpie_status magpie_linear(const magpie_bitmap *bitmap, const double scale[3], const double offset[3], magpie_image *result,
                            char *error, size_t error_length);
/// Each colour band's levels through its 256-entry table in `table` (3 x 256, interleaved:
/// level L of band B at L * 3 + B).
magpie_status magpie_lookup(const magpie_bitmap *bitmap, const unsigned char *table, magpie_image *result, char *error,
                            size_t error_length);
/// Each colour band's histogram spread over 0...255 (its lowest level present becomes 0).
magpie_status magpie_equalize(const magpie_bitmap *bitmap, magpie_image *result, char *error, size_t error_length);
/// The same random level, Gaussian with standard deviation `sigma` and seeded by `seed`, added to
/// every colour band of a pixel.
magpie_status magpie_noise(const magpie_bitmap *bitmap, double sigma, int seed, magpie_image *result, char *error,
                           size_t error_length);
/// The colour bands (and alpha, unless the image is opaque) convolved with the `columns` x `rows`
/// weights in `matrix`, row by row, each side 1...25; edges repeat.
magpie_status magpie_convolve(const magpie_bitmap *bitmap, const double *matrix, int columns, int rows, magpie_image *result,
                              char *error, size_t error_length);
/// Each colour band moved from the pixel's perceived brightness, √(.299r² + .587g² + .114b²), by
/// `amount` times its distance (thumbor's saturation; 0 is grey, 1 leaves it).
magpie_status magpie_saturate(const magpie_bitmap *bitmap, double amount, magpie_image *result, char *error,
                              size_t error_length);
/// Lightness and chroma multiplied and the hue turned by `hue` degrees, in CIE LCh (imagor's
/// and sharp's `modulate`; 1, 1, 0 leaves the image).
magpie_status magpie_modulate(const magpie_bitmap *bitmap, double lightness, double chroma, double hue, magpie_image *result,
                              char *error, size_t error_length);

/// What `magpie_find_trim` looks for.
typedef struct {
    /// How far (in levels) a pixel may be from the border colour and still be border.
    double threshold;
    /// The border colour; ignored when `from_corner` is set.
    double red, green, blue;
    /// Take the border colour from the top-left pixel.
    int from_corner;
    /// Keep the left and right borders equal (the smaller grows to the larger's cut), and the
    /// top and bottom ones.
    int equal_horizontal;
    int equal_vertical;
} magpie_trim_options;

/// The rectangle of the RGBA8 bitmap inside its borders of one colour, in `left`, `top`,
/// `width` and `height`; the whole bitmap when it is all border. Transparent pixels are judged
/// as if on magenta.
magpie_status magpie_find_trim(const unsigned char *pixels, int width, int height, const magpie_trim_options *options,
                               int *left, int *top, int *kept_width, int *kept_height, char *error, size_t error_length);

/// How `magpie_watermark` lays a mark over an image.
typedef struct {
    /// Where the mark's top-left corners go on each frame: every pairing of the `column_count`
    /// lefts with the `row_count` tops (a grid; one of each for a single mark). Marks may reach
    /// past the edges, which cut them; they should not overlap one another.
    const int *lefts;
    int column_count;
    const int *tops;
    int row_count;
    /// Multiplies the mark's alpha, 0...1.
    double opacity;
    /// Repeat the mark across each frame from its centre instead of placing it once.
    int tile;
    /// Bytes a sample of the image (the mark has 1): 2 for a still with 16 bits a sample, which
    /// the result keeps, the mark widened to them. 0 is read as 1.
    int sample_bytes;
} magpie_watermark_options;

/// Prepares the RGBA8 mark (`mark_width` x `mark_height`) composited over every frame of the
/// RGBA8 bitmap `pixels` (as for the operations); both bitmaps must stay alive until the
/// result is rendered.
magpie_status magpie_watermark(const unsigned char *pixels, int width, int height, int frames, const unsigned char *mark,
                               int mark_width, int mark_height, const magpie_watermark_options *options, magpie_image *result,
                               char *error, size_t error_length);

/// Whether every one of the `count` RGBA8 pixels has alpha 255.
int magpie_is_opaque(const unsigned char *pixels, size_t count);
/// The same for pixels of `sample_bytes` bytes a sample: 1, or 2 (native byte order), whose
/// opaque alpha is 65535.
int magpie_is_opaque_samples(const unsigned char *pixels, size_t count, int sample_bytes);

/// Makes the corners of the RGBA8 bitmap transparent outside arcs `across` pixels wide and
/// `down` pixels tall (each at most half its side; equal for circular arcs), in place, with
/// anti-aliased edges (coverage from the distance to the arc). Half of each side on a square
/// image gives a circle.
void magpie_round_corners(unsigned char *pixels, int width, int height, double across, double down);

#ifdef __cplusplus
}
#endif

#endif
