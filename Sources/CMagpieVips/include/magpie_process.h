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

typedef enum {
    MAGPIE_OPERATION_RESIZE = 0,
    MAGPIE_OPERATION_CROP = 1,
    MAGPIE_OPERATION_BLUR = 2,
    MAGPIE_OPERATION_GRAYSCALE = 3,
    MAGPIE_OPERATION_SHARPEN = 4,
    /// Places the image on a larger canvas of `background`.
    MAGPIE_OPERATION_EMBED = 5,
    /// Turns the image clockwise by `angle` degrees, a multiple of 90.
    MAGPIE_OPERATION_ROTATE = 6,
    /// Mirrors the image left to right and/or top to bottom.
    MAGPIE_OPERATION_FLIP = 7,
    /// Averages blocks of `width` x `width` pixels.
    MAGPIE_OPERATION_PIXELATE = 8,
    /// Composites the image over the opaque colour `background`.
    MAGPIE_OPERATION_FLATTEN = 9,
    /// Brightness, contrast and saturation: see `brightness`.
    MAGPIE_OPERATION_ADJUST = 10,
    /// Unsharp mask on every colour band: the image plus `amount` times its difference from a
    /// Gaussian blur of `sigma`.
    MAGPIE_OPERATION_UNSHARP = 11,
    /// Each colour band times `scale[band]` plus `offset[band]`.
    MAGPIE_OPERATION_LINEAR = 12,
    /// Each colour band's levels through its 256-entry table in `lookup` (red's, green's, blue's).
    MAGPIE_OPERATION_LOOKUP = 13,
    /// Each colour band's histogram spread over 0...255 (its lowest level present becomes 0).
    MAGPIE_OPERATION_EQUALIZE = 14,
    /// The same random level, Gaussian with standard deviation `sigma` and seeded by `seed`,
    /// added to every colour band of a pixel.
    MAGPIE_OPERATION_NOISE = 15,
    /// The colour bands (and alpha, unless the image is opaque) convolved with the
    /// `matrix_columns` x `matrix_rows` weights in `matrix`, row by row; edges repeat.
    MAGPIE_OPERATION_CONVOLVE = 16,
    /// Each colour band moved from the pixel's perceived brightness, √(.299r² + .587g² + .114b²),
    /// by `amount` times its distance (thumbor's saturation; 0 is grey, 1 leaves it).
    MAGPIE_OPERATION_SATURATE = 17,
} magpie_operation;

typedef struct {
    magpie_operation operation;
    /// Resize: the box. Crop: the size of the area kept.
    int width;
    int height;
    /// Resize: how the image meets the box (a fill is cropped by `gravity`).
    magpie_fit fit;
    /// Resize: whether an image smaller than the box is enlarged.
    int upscale;
    /// Resize: the whole image's size when the bitmap holds it decoded at a reduced scale
    /// (`magpie_image.full_width`), 0 x 0 otherwise. The output is sized from it, so it is the
    /// size a resize of the whole image gives.
    int full_width;
    int full_height;
    /// Crop: when `gravity_crop` is 0, the top-left corner of the area kept. Embed: where the
    /// image's top-left corner goes on the canvas of `width` x `height`.
    int x;
    int y;
    int gravity_crop;
    magpie_gravity gravity;
    /// Blur: the Gaussian's standard deviation in pixels. Sharpen: the radius of its mask.
    double sigma;
    /// Rotate: 90, 180 or 270.
    int angle;
    /// Flip: which mirrorings.
    int flip_horizontal;
    int flip_vertical;
    /// Embed: the canvas's red, green, blue and alpha, 0...255 (all 0: transparent). Flatten:
    /// the colour under the image (alpha is ignored).
    double background[4];
    /// Adjust: levels added to red, green and blue (-255...255); `contrast` multiplies the
    /// distance from mid-grey (128) and `saturation` the distance from each pixel's grey
    /// (Rec. 709 luma), 0...10 each, 1 leaving them.
    double brightness;
    double contrast;
    double saturation;
    /// Unsharp: how much of the difference from the blur is added, 0...10.
    double amount;
    /// Linear: per colour band.
    double scale[3];
    double offset[3];
    /// Lookup: 3 x 256 levels.
    const unsigned char *lookup;
    /// Noise: the generator's seed.
    int seed;
    /// Convolve: the weights, at most 25 x 25.
    const double *matrix;
    int matrix_columns;
    int matrix_rows;
    /// Bytes a sample of the input (and the output): 1, or 2 for a still with 16 bits a sample
    /// (native byte order), which resize, crop, embed, rotate, flip and flatten keep. 0 is read as 1.
    int sample_bytes;
} magpie_process_options;

/// Prepares `options`' operation on the RGBA8 (straight alpha) bitmap `pixels`: `frames`
/// frames of `width` x `height` stacked top to bottom (1 for a still). It must stay alive
/// until the result is rendered with `magpie_render` and freed with `magpie_free_image`.
/// Each frame is processed on its own with the first frame's geometry (a smart crop's box
/// is chosen on the first frame). Images with transparency are resized and blurred
/// premultiplied, so edges do not darken; opaque ones are processed without their alpha band.
magpie_status magpie_process(const unsigned char *pixels, int width, int height, int frames,
                   const magpie_process_options *options, magpie_image *result,
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
/// RGBA8 bitmap `pixels` (as for `magpie_process`); both bitmaps must stay alive until the
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
