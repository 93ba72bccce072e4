// Sharpening: libvips' mask on lightness, and the classic unsharp mask on every band.
#include "shim_internal.h"

#include <vips/vips.h>

// libvips' sharpen works on lightness alone (in LabS) and gives back sRGB; transparency is kept
// as it was.
static int apply_sharpen(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)opaque, (void)box;
    const double *sigma = arguments;
    VipsImage *rgb = NULL, *alpha = NULL, *sharp = NULL, *bytes = NULL;
    int failed = vips_extract_band(rgba, &rgb, 0, "n", 3, NULL) || vips_extract_band(rgba, &alpha, 3, NULL) ||
                 vips_sharpen(rgb, &sharp, "sigma", *sigma, NULL) || vips_cast_uchar(sharp, &bytes, NULL);
    if (!failed) {
        VipsImage *bands[2] = {bytes, alpha};
        failed = vips_bandjoin(bands, out, 2, NULL);
    }
    VipsImage *made[] = {rgb, alpha, sharp, bytes};
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
        if (made[i]) g_object_unref(made[i]);
    return failed ? -1 : 0;
}

magpie_status magpie_sharpen(const magpie_bitmap *bitmap, double sigma, magpie_image *result, char *error,
                             size_t error_length) {
    if (!(sigma > 0 && sigma <= 10)) return magpie_refuse(error, error_length, "sigma must be above 0 and at most 10");
    magpie_operation operation = {apply_sharpen, &sigma, sizeof sigma, 0};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}

typedef struct {
    double sigma;
    double amount;
} unsharp_arguments;

// The classic unsharp mask, in the bands as they are (premultiplied with transparency): one
// blur and three arithmetic passes, no colour-space round trip.
static int apply_unsharp(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)box;
    const unsharp_arguments *mask = arguments;
    VipsImage *filtered = NULL, *blurred = NULL, *difference = NULL, *scaled = NULL, *sum = NULL;
    int failed = magpie_prepare_for_filtering(rgba, opaque, &filtered) ||
                 magpie_exact_gaussian_blur(filtered, mask->sigma, &blurred) ||
                 vips_subtract(filtered, blurred, &difference, NULL) || vips_linear1(difference, &scaled, mask->amount, 0, NULL) ||
                 vips_add(filtered, scaled, &sum, NULL) || magpie_finish_filtering(sum, opaque, magpie_is_sixteen(rgba), out);
    VipsImage *made[] = {filtered, blurred, difference, scaled, sum};
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
        if (made[i]) g_object_unref(made[i]);
    return failed ? -1 : 0;
}

magpie_status magpie_unsharp(const magpie_bitmap *bitmap, double sigma, double amount, magpie_image *result, char *error,
                             size_t error_length) {
    if (!(sigma > 0 && sigma <= 10) || !(amount >= 0 && amount <= 10))
        return magpie_refuse(error, error_length, "sigma must be above 0 and at most 10, amount 0 to 10");
    unsharp_arguments mask = {sigma, amount};
    magpie_operation operation = {apply_unsharp, &mask, sizeof mask, 0};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}
