// Grey: linear-light luminance with Rec. 709 weights, by two table lookups.
#include "shim_internal.h"

#include <math.h>
#include <pthread.h>
#include <vips/vips.h>

// Tables for the grey conversion, made once. The first maps each band's sRGB level to its share
// of the luminance (linear light times the band's Rec. 709 weight, in 1/65535 steps, times three
// so that the bands' mean is the sum; the halves make the cast below round). The second maps a
// luminance step back to the sRGB level, in three bands. Two lookups and a mean replace libvips'
// B_W colour-space round trip, four float passes that cost more than a blur on a thumbnail.
static VipsImage *levels_to_luminance, *luminance_to_levels;

static double srgb_to_linear(int level) {
    double v = level / 255.0;
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static unsigned char linear_to_srgb_level(double linear) {
    double v = linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1.0 / 2.4) - 0.055;
    return (unsigned char)VIPS_CLIP(0.0, round(v * 255.0), 255.0);
}

static void make_grey_tables(void) {
    static const double weights[3] = {0.2126, 0.7152, 0.0722};
    float shares[256 * 3];
    for (int level = 0; level < 256; level++)
        for (int band = 0; band < 3; band++)
            shares[level * 3 + band] = (float)(3.0 * (weights[band] * srgb_to_linear(level) * 65535.0 + 0.5 / 3.0));
    unsigned char *levels = g_malloc(65536 * 3);
    for (int step = 0; step < 65536; step++)
        levels[step * 3] = levels[step * 3 + 1] = levels[step * 3 + 2] = linear_to_srgb_level(step / 65535.0);
    levels_to_luminance = vips_image_new_from_memory_copy(shares, sizeof(shares), 256, 1, 3, VIPS_FORMAT_FLOAT);
    luminance_to_levels = vips_image_new_from_memory_copy(levels, 65536 * 3, 65536, 1, 3, VIPS_FORMAT_UCHAR);
    g_free(levels);
}

// Linear-light luminance with Rec. 709 weights, written back as sRGB grey; transparency kept.
static int apply_grayscale(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)opaque, (void)arguments, (void)box;
    // pthread_once rather than g_once: Thread Sanitizer sees its ordering (GLib here is inside
    // the uninstrumented libvips).
    static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
    pthread_once(&tables_once, make_grey_tables);
    if (!levels_to_luminance || !luminance_to_levels) {
        vips_error("magpie", "could not make the grey tables");
        return -1;
    }
    VipsImage *rgb = NULL, *alpha = NULL, *shares = NULL, *luminance = NULL, *steps = NULL, *grey = NULL;
    int failed = vips_extract_band(rgba, &rgb, 0, "n", 3, NULL) || vips_extract_band(rgba, &alpha, 3, NULL) ||
                 vips_maplut(rgb, &shares, levels_to_luminance, NULL) || vips_bandmean(shares, &luminance, NULL) ||
                 vips_cast_ushort(luminance, &steps, NULL) || vips_maplut(steps, &grey, luminance_to_levels, NULL);
    if (!failed) {
        VipsImage *bands[2] = {grey, alpha};
        failed = vips_bandjoin(bands, out, 2, NULL);
    }
    VipsImage *made[] = {rgb, alpha, shares, luminance, steps, grey};
    for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
        if (made[i]) g_object_unref(made[i]);
    return failed ? -1 : 0;
}

magpie_status magpie_grayscale(const magpie_bitmap *bitmap, magpie_image *result, char *error, size_t error_length) {
    magpie_operation operation = {apply_grayscale, NULL, 0, 0};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}
