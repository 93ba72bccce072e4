// Finding an image's borders of one colour, for a trim: only the rectangle is found here, and
// the crop is the shim's usual one, so every frame of an animation is cut alike.
#include "magpie_process.h"
#include "shim_internal.h"

#include <math.h>
#include <vips/vips.h>

// A pixel as the finder judges it: transparency on magenta, a colour unlikely to be the
// border's, as imgproxy judges it.
static void judged(const unsigned char *pixel, double rgb[3]) {
    double alpha = pixel[3] / 255.0;
    double magenta[3] = {255, 0, 255};
    for (int band = 0; band < 3; band++) rgb[band] = pixel[band] * alpha + magenta[band] * (1 - alpha);
}

// Whether the pixel is further than `threshold` from the border colour in any band.
static int is_content(const unsigned char *pixel, const double colour[3], double threshold) {
    if (pixel[3] == 255) {
        return fabs(pixel[0] - colour[0]) > threshold || fabs(pixel[1] - colour[1]) > threshold || fabs(pixel[2] - colour[2]) > threshold;
    }
    double rgb[3];
    judged(pixel, rgb);
    return fabs(rgb[0] - colour[0]) > threshold || fabs(rgb[1] - colour[1]) > threshold || fabs(rgb[2] - colour[2]) > threshold;
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
    // Scanning inwards from each side reads the borders and stops at the first content, where
    // libvips' find_trim median-filters and profiles every pixel (seconds at 12 MP).
    double colour[3] = {options->red, options->green, options->blue};
    if (options->from_corner) judged(pixels, colour);
    double threshold = options->threshold;
    size_t stride = (size_t)width * 4;
#define CONTENT(x, y) is_content(pixels + (size_t)(y) * stride + (size_t)(x) * 4, colour, threshold)
    int first_row = 0, last_row = height - 1, first_column = 0, last_column = width - 1;
    for (; first_row < height; first_row++) {
        int found = 0;
        for (int x = 0; x < width && !found; x++) found = CONTENT(x, first_row);
        if (found) break;
    }
    int found_left = 0, found_top = 0, found_width = 0, found_height = 0;
    if (first_row < height) {
        for (; last_row > first_row; last_row--) {
            int found = 0;
            for (int x = 0; x < width && !found; x++) found = CONTENT(x, last_row);
            if (found) break;
        }
        for (; first_column < width; first_column++) {
            int found = 0;
            for (int y = first_row; y <= last_row && !found; y++) found = CONTENT(first_column, y);
            if (found) break;
        }
        for (; last_column > first_column; last_column--) {
            int found = 0;
            for (int y = first_row; y <= last_row && !found; y++) found = CONTENT(last_column, y);
            if (found) break;
        }
        found_left = first_column, found_top = first_row;
        found_width = last_column - first_column + 1, found_height = last_row - first_row + 1;
    }
#undef CONTENT
    // All border: nothing is cut.
    if (found_width == 0 || found_height == 0) return MAGPIE_STATUS_OK;
    if (options->equal_horizontal) equalise(width, &found_left, &found_width);
    if (options->equal_vertical) equalise(height, &found_top, &found_height);
    *left = found_left, *top = found_top, *kept_width = found_width, *kept_height = found_height;
    return MAGPIE_STATUS_OK;
}
