// Finding an image's borders of one colour, for a trim: only the rectangle is found here, and
// the crop is the shim's usual one, so every frame of an animation is cut alike.
#include "magpie_process.h"
#include "shim_internal.h"

#include <vips/vips.h>

// Transparent pixels are judged on magenta, a colour unlikely to be the border's, as imgproxy
// judges them.
static int flat_rgb(VipsImage *rgba, VipsImage **out) {
    double magenta[3] = {255, 0, 255};
    VipsArrayDouble *background = vips_array_double_new(magenta, 3);
    VipsImage *flat = NULL;
    int failed = vips_flatten(rgba, &flat, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    if (failed) return -1;
    failed = vips_cast_uchar(flat, out, NULL);
    g_object_unref(flat);
    return failed;
}

// Grows the smaller of two opposite borders' cuts to the larger's.
static void equalise(int size, int *start, int *length) {
    int end = size - *start - *length;
    if (end > *start) {
        *length += end - *start;
    } else if (end < *start) {
        *length += *start - end;
        *start = end;
    }
}

magpie_status magpie_find_trim(const unsigned char *pixels, int width, int height, const magpie_trim_options *options,
                               int *left, int *top, int *kept_width, int *kept_height, char *error, size_t error_length) {
    *left = 0, *top = 0, *kept_width = width, *kept_height = height;
    if (width <= 0 || height <= 0 || !(options->threshold >= 0 && options->threshold <= 255)) {
        magpie_set_error(error, error_length, "the image is empty or the threshold is not 0 to 255");
        return MAGPIE_STATUS_FAILED;
    }
    VipsImage *rgba = magpie_wrap_rgba(pixels, width, height), *rgb = NULL;
    if (!rgba) {
        magpie_take_error(error, error_length, "could not wrap the pixels");
        return MAGPIE_STATUS_FAILED;
    }
    int failed = flat_rgb(rgba, &rgb);
    g_object_unref(rgba);
    double colour[3] = {options->red, options->green, options->blue};
    if (!failed && options->from_corner) {
        double *point = NULL;
        int bands = 0;
        failed = vips_getpoint(rgb, &point, &bands, 0, 0, NULL);
        for (int band = 0; !failed && band < 3 && band < bands; band++) colour[band] = point[band];
        g_free(point);
    }
    int found_left = 0, found_top = 0, found_width = 0, found_height = 0;
    if (!failed) {
        VipsArrayDouble *background = vips_array_double_new(colour, 3);
        failed = vips_find_trim(rgb, &found_left, &found_top, &found_width, &found_height, "background", background, "threshold",
                                options->threshold, NULL);
        vips_area_unref(VIPS_AREA(background));
    }
    if (rgb) g_object_unref(rgb);
    if (failed) {
        magpie_take_error(error, error_length, "finding the borders failed");
        return MAGPIE_STATUS_FAILED;
    }
    // All border: nothing is cut.
    if (found_width == 0 || found_height == 0) return MAGPIE_STATUS_OK;
    if (options->equal_horizontal) equalise(width, &found_left, &found_width);
    if (options->equal_vertical) equalise(height, &found_top, &found_height);
    *left = found_left, *top = found_top, *kept_width = found_width, *kept_height = found_height;
    return MAGPIE_STATUS_OK;
}
