// Tone operations: levels changed band by band, by arithmetic, a table, the histogram, noise or
// a convolution. Each works on the colour bands as floats and writes them back rounded and
// clamped to 0...255, with the alpha band kept.
#include "magpie_process.h"
#include "shim_internal.h"

#include <vips/vips.h>

// The colour bands of `image` (floats) through the operation.
static int linear(VipsImage *colour, const magpie_process_options *options, VipsImage **out) {
    return vips_linear(colour, out, options->scale, options->offset, 3, NULL);
}

static int lookup(VipsImage *colour, const magpie_process_options *options, VipsImage **out) {
    VipsImage *table = vips_image_new_from_memory_copy(options->lookup, 256 * 3, 256, 1, 3, VIPS_FORMAT_UCHAR);
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
static int equalize(VipsImage *colour, VipsImage **out) {
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

static int noise(VipsImage *colour, const magpie_process_options *options, VipsImage **out) {
    VipsImage *levels = NULL;
    int failed = vips_gaussnoise(&levels, vips_image_get_width(colour), vips_image_get_height(colour), "sigma", options->sigma,
                                 "mean", 0.0, "seed", options->seed, NULL) ||
                 vips_add(colour, levels, out, NULL);
    if (levels) g_object_unref(levels);
    return failed;
}

static int convolve(VipsImage *bands, const magpie_process_options *options, VipsImage **out) {
    VipsImage *matrix = vips_image_new_matrix_from_array(options->matrix_columns, options->matrix_rows, options->matrix,
                                                         options->matrix_columns * options->matrix_rows);
    if (!matrix) return -1;
    int failed = vips_conv(bands, out, matrix, "precision", VIPS_PRECISION_FLOAT, NULL);
    g_object_unref(matrix);
    return failed;
}

static int saturate(VipsImage *colour, double amount, VipsImage **out) {
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

int magpie_tone(VipsImage *rgba, int opaque, const magpie_process_options *options, VipsImage **out) {
    // A convolution of a translucent image blends its alpha too, as thumbor's does.
    int bands = options->operation == MAGPIE_OPERATION_CONVOLVE && !opaque ? 4 : 3;
    VipsImage *colour = NULL, *alpha = NULL, *floats = NULL, *changed = NULL, *rounded = NULL, *bytes = NULL;
    int failed = vips_extract_band(rgba, &colour, 0, "n", bands, NULL) || vips_cast_float(colour, &floats, NULL);
    if (!failed && bands == 3) failed = vips_extract_band(rgba, &alpha, 3, NULL);
    if (!failed) {
        switch (options->operation) {
        case MAGPIE_OPERATION_LINEAR: failed = linear(floats, options, &changed); break;
        case MAGPIE_OPERATION_LOOKUP: failed = lookup(floats, options, &changed); break;
        case MAGPIE_OPERATION_EQUALIZE: failed = equalize(floats, &changed); break;
        case MAGPIE_OPERATION_NOISE: failed = noise(floats, options, &changed); break;
        case MAGPIE_OPERATION_CONVOLVE: failed = convolve(floats, options, &changed); break;
        case MAGPIE_OPERATION_SATURATE: failed = saturate(floats, options->amount, &changed); break;
        default: failed = -1;
        }
    }
    failed = failed || vips_round(changed, &rounded, VIPS_OPERATION_ROUND_RINT, NULL) || vips_cast_uchar(rounded, &bytes, NULL);
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
