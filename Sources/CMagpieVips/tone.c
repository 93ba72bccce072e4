// Tone operations: levels changed band by band, by arithmetic, a table, the histogram, noise or
// a convolution, each on the colour bands as floats written back rounded and clamped to
// 0...255; and a modulation in LCh. The alpha band is kept.
#include "magpie_process.h"
#include "shim_internal.h"

#include <string.h>
#include <vips/vips.h>

// An operation's own values; `change` is the step on the colour bands as floats.
typedef struct tone_arguments {
    int (*change)(VipsImage *colour, const struct tone_arguments *arguments, VipsImage **out);
    union {
        struct {
            double scale[3], offset[3];
        } linear;
        const unsigned char *table;
        struct {
            double sigma;
            int seed;
        } noise;
        struct {
            const double *matrix;
            int columns, rows;
        } convolution;
        double amount;
    } values;
} tone_arguments;

static int linear(VipsImage *colour, const tone_arguments *arguments, VipsImage **out) {
    return vips_linear(colour, out, arguments->values.linear.scale, arguments->values.linear.offset, 3, NULL);
}

static int lookup(VipsImage *colour, const tone_arguments *arguments, VipsImage **out) {
    VipsImage *table = vips_image_new_from_memory_copy(arguments->values.table, 256 * 3, 256, 1, 3, VIPS_FORMAT_UCHAR);
    if (!table) return -1;
    VipsImage *bytes = NULL;
    int failed = vips_cast_uchar(colour, &bytes, NULL) || vips_maplut(bytes, out, table, NULL);
    g_object_unref(table);
    if (bytes) g_object_unref(bytes);
    return failed;
}

// thumbor's equalize: each band's cumulative histogram over the pixels, counted from the first
// level where any band has pixels (those bands subtract their count there, the others nothing),
// scaled to 0...255 and truncated.
static int equalize(VipsImage *colour, const tone_arguments *arguments, VipsImage **out) {
    (void)arguments;
    VipsImage *bytes = NULL, *histogram = NULL, *cumulative = NULL, *counts = NULL;
    int failed = vips_cast_uchar(colour, &bytes, NULL) || vips_hist_find(bytes, &histogram, NULL) ||
                 vips_hist_cum(histogram, &cumulative, NULL) || vips_cast_double(cumulative, &counts, NULL);
    unsigned char table[256 * 3];
    if (!failed) {
        size_t length = 0;
        double *sums = vips_image_write_to_memory(counts, &length);
        failed = !sums || length != sizeof(double) * 256 * 3;
        int first = 0;
        while (!failed && first < 255 && sums[first * 3] == 0 && sums[first * 3 + 1] == 0 && sums[first * 3 + 2] == 0) first++;
        for (int band = 0; !failed && band < 3; band++) {
            double lowest = sums[first * 3 + band], area = sums[255 * 3 + band];
            for (int level = 0; level < 256; level++) {
                // A band of one level has no spread to equalise: it is kept.
                double spread = area > lowest ? (sums[level * 3 + band] - lowest) / (area - lowest) * 255 : level;
                table[level * 3 + band] = (unsigned char)VIPS_CLIP(0, spread, 255);
            }
        }
        g_free(sums);
    }
    VipsImage *map = failed ? NULL : vips_image_new_from_memory_copy(table, sizeof table, 256, 1, 3, VIPS_FORMAT_UCHAR);
    failed = failed || !map || vips_maplut(bytes, out, map, NULL);
    if (map) g_object_unref(map);
    if (bytes) g_object_unref(bytes);
    if (histogram) g_object_unref(histogram);
    if (cumulative) g_object_unref(cumulative);
    if (counts) g_object_unref(counts);
    return failed;
}

static int noise(VipsImage *colour, const tone_arguments *arguments, VipsImage **out) {
    VipsImage *levels = NULL;
    int failed = vips_gaussnoise(&levels, vips_image_get_width(colour), vips_image_get_height(colour), "sigma",
                                 arguments->values.noise.sigma, "mean", 0.0, "seed", arguments->values.noise.seed, NULL) ||
                 vips_add(colour, levels, out, NULL);
    if (levels) g_object_unref(levels);
    return failed;
}

static int convolve(VipsImage *bands, const tone_arguments *arguments, VipsImage **out) {
    int columns = arguments->values.convolution.columns, rows = arguments->values.convolution.rows;
    VipsImage *matrix = vips_image_new_matrix_from_array(columns, rows, arguments->values.convolution.matrix, columns * rows);
    if (!matrix) return -1;
    int failed = vips_conv(bands, out, matrix, "precision", VIPS_PRECISION_FLOAT, NULL);
    g_object_unref(matrix);
    return failed;
}

static int saturate(VipsImage *colour, const tone_arguments *arguments, VipsImage **out) {
    double amount = arguments->values.amount;
    VipsImage *matrix = vips_image_new_matrix_from_array(3, 1, (const double[]){0.299, 0.587, 0.114}, 3);
    if (!matrix) return -1;
    VipsImage *squares = NULL, *weighted = NULL, *brightness = NULL, *moved = NULL, *rest = NULL;
    int failed = vips_multiply(colour, colour, &squares, NULL) || vips_recomb(squares, &weighted, matrix, NULL) ||
                 vips_pow_const1(weighted, &brightness, 0.5, NULL) || vips_linear1(colour, &moved, amount, 0, NULL) ||
                 vips_linear1(brightness, &rest, 1 - amount, 0, NULL) || vips_add(moved, rest, out, NULL);
    VipsImage *owned[] = {matrix, squares, weighted, brightness, moved, rest};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        if (owned[i]) g_object_unref(owned[i]);
    return failed;
}

static int apply_tone(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)box;
    const tone_arguments *tone = arguments;
    // A convolution of a translucent image blends its alpha too, as thumbor's does.
    int bands = tone->change == convolve && !opaque ? 4 : 3;
    VipsImage *colour = NULL, *alpha = NULL, *floats = NULL, *changed = NULL, *rounded = NULL, *bytes = NULL;
    int failed = vips_extract_band(rgba, &colour, 0, "n", bands, NULL) || vips_cast_float(colour, &floats, NULL);
    if (!failed && bands == 3) failed = vips_extract_band(rgba, &alpha, 3, NULL);
    failed = failed || tone->change(floats, tone, &changed) || vips_round(changed, &rounded, VIPS_OPERATION_ROUND_RINT, NULL) ||
             vips_cast_uchar(rounded, &bytes, NULL);
    if (!failed && alpha) {
        VipsImage *joined[2] = {bytes, alpha};
        failed = vips_bandjoin(joined, out, 2, NULL);
    } else if (!failed) {
        g_object_ref(bytes);
        *out = bytes;
    }
    VipsImage *owned[] = {colour, alpha, floats, changed, rounded, bytes};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        if (owned[i]) g_object_unref(owned[i]);
    return failed ? -1 : 0;
}

static magpie_status run(const magpie_bitmap *bitmap, const tone_arguments *tone, magpie_image *result, char *error,
                         size_t error_length) {
    magpie_operation operation = {apply_tone, tone, sizeof *tone, 0};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}

magpie_status magpie_linear(const magpie_bitmap *bitmap, const double scale[3], const double offset[3], magpie_image *result,
                            char *error, size_t error_length) {
    tone_arguments tone = {.change = linear};
    memcpy(tone.values.linear.scale, scale, sizeof tone.values.linear.scale);
    memcpy(tone.values.linear.offset, offset, sizeof tone.values.linear.offset);
    return run(bitmap, &tone, result, error, error_length);
}

magpie_status magpie_lookup(const magpie_bitmap *bitmap, const unsigned char *table, magpie_image *result, char *error,
                            size_t error_length) {
    if (!table) return magpie_refuse(error, error_length, "no lookup table");
    return run(bitmap, &(tone_arguments){.change = lookup, .values.table = table}, result, error, error_length);
}

magpie_status magpie_equalize(const magpie_bitmap *bitmap, magpie_image *result, char *error, size_t error_length) {
    return run(bitmap, &(tone_arguments){.change = equalize}, result, error, error_length);
}

magpie_status magpie_noise(const magpie_bitmap *bitmap, double sigma, int seed, magpie_image *result, char *error,
                           size_t error_length) {
    return run(bitmap, &(tone_arguments){.change = noise, .values.noise = {sigma, seed}}, result, error, error_length);
}

magpie_status magpie_convolve(const magpie_bitmap *bitmap, const double *matrix, int columns, int rows, magpie_image *result,
                              char *error, size_t error_length) {
    if (!(matrix && columns >= 1 && columns <= 25 && rows >= 1 && rows <= 25))
        return magpie_refuse(error, error_length, "a convolution matrix is 1x1 to 25x25");
    tone_arguments tone = {.change = convolve, .values.convolution = {matrix, columns, rows}};
    return run(bitmap, &tone, result, error, error_length);
}

magpie_status magpie_saturate(const magpie_bitmap *bitmap, double amount, magpie_image *result, char *error,
                              size_t error_length) {
    return run(bitmap, &(tone_arguments){.change = saturate, .values.amount = amount}, result, error, error_length);
}

// Lightness, chroma and hue in CIE LCh: the colour bands go there from sRGB and back, where
// libvips rounds and clips them to bytes; alpha is kept. Not through `apply_tone`, whose floats
// would be read as linear light: the conversion wants the sRGB bytes themselves.
typedef struct {
    double lightness, chroma, hue;
} modulation;

static int apply_modulate(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)opaque, (void)box;
    const modulation *change = arguments;
    VipsImage *colour = NULL, *lch = NULL, *moved = NULL, *back = NULL, *alpha = NULL;
    int failed = vips_extract_band(rgba, &colour, 0, "n", 3, NULL) ||
                 vips_colourspace(colour, &lch, VIPS_INTERPRETATION_LCH, "source_space", VIPS_INTERPRETATION_sRGB, NULL) ||
                 vips_linear(lch, &moved, (double[]){change->lightness, change->chroma, 1}, (double[]){0, 0, change->hue}, 3, NULL) ||
                 vips_colourspace(moved, &back, VIPS_INTERPRETATION_sRGB, NULL) || vips_extract_band(rgba, &alpha, 3, NULL);
    if (!failed) failed = vips_bandjoin2(back, alpha, out, NULL);
    VipsImage *owned[] = {colour, lch, moved, back, alpha};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        if (owned[i]) g_object_unref(owned[i]);
    return failed ? -1 : 0;
}

magpie_status magpie_modulate(const magpie_bitmap *bitmap, double lightness, double chroma, double hue, magpie_image *result,
                              char *error, size_t error_length) {
    if (!(lightness >= 0 && lightness <= 10 && chroma >= 0 && chroma <= 10 && hue >= -360 && hue <= 360))
        return magpie_refuse(error, error_length, "lightness and chroma are 0 to 10 times, the hue turn -360 to 360 degrees");
    modulation change = {lightness, chroma, hue};
    magpie_operation operation = {apply_modulate, &change, sizeof change, 0};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}
