// Brightness, contrast and saturation in one step.
#include "shim_internal.h"

#include <vips/vips.h>

typedef struct {
    double brightness, contrast, saturation;
} adjustment;

// One matrix and one linear step on the colour bands: saturation mixes each pixel with its grey
// (rows of luma weights), contrast scales around mid-grey, brightness adds; alpha is kept.
static int apply_adjust(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)opaque, (void)box;
    const adjustment *change = arguments;
    const double luma[3] = {0.2126, 0.7152, 0.0722};
    double saturation = change->saturation, contrast = change->contrast;
    VipsImage *matrix = vips_image_new_matrix(3, 3);
    if (!matrix) return -1;
    for (int row = 0; row < 3; row++)
        for (int column = 0; column < 3; column++)
            *VIPS_MATRIX(matrix, column, row) = (1 - saturation) * luma[column] + (row == column ? saturation : 0);
    VipsImage *rgb = NULL, *alpha = NULL, *mixed = NULL, *scaled = NULL, *bytes = NULL;
    double a[3] = {contrast, contrast, contrast};
    double b[3];
    for (int band = 0; band < 3; band++) b[band] = 128 - 128 * contrast + change->brightness;
    int failed = vips_extract_band(rgba, &rgb, 0, "n", 3, NULL) || vips_extract_band(rgba, &alpha, 3, NULL) ||
                 vips_recomb(rgb, &mixed, matrix, NULL) || vips_linear(mixed, &scaled, a, b, 3, NULL) ||
                 vips_cast_uchar(scaled, &bytes, NULL);
    if (!failed) {
        VipsImage *bands[2] = {bytes, alpha};
        failed = vips_bandjoin(bands, out, 2, NULL);
    }
    g_object_unref(matrix);
    if (rgb) g_object_unref(rgb);
    if (alpha) g_object_unref(alpha);
    if (mixed) g_object_unref(mixed);
    if (scaled) g_object_unref(scaled);
    if (bytes) g_object_unref(bytes);
    return failed ? -1 : 0;
}

magpie_status magpie_adjust(const magpie_bitmap *bitmap, double brightness, double contrast, double saturation,
                            magpie_image *result, char *error, size_t error_length) {
    if (!(brightness >= -255 && brightness <= 255 && contrast >= 0 && contrast <= 10 && saturation >= 0 && saturation <= 10))
        return magpie_refuse(error, error_length, "brightness is -255 to 255, contrast and saturation 0 to 10");
    adjustment change = {brightness, contrast, saturation};
    magpie_operation operation = {apply_adjust, &change, sizeof change, 0};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}
