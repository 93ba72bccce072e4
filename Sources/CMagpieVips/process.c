// A bitmap through one operation: a still at once, an animation frame by frame.
#include "magpie_process.h"
#include "shim_internal.h"

#include <math.h>
#include <vips/vips.h>

magpie_status magpie_process_bitmap(const magpie_bitmap *bitmap, const magpie_operation *operation, magpie_image *result,
                                    char *error, size_t error_length) {
    result->handle = NULL;
    result->owned_data = NULL;
    int width = bitmap->width, height = bitmap->height, frames = bitmap->frames;
    if (width <= 0 || height <= 0 || frames <= 0) return magpie_refuse(error, error_length, "the image is empty");
    size_t pixel_count = (size_t)width * height * frames;
    int sixteen = bitmap->sample_bytes == 2;
    if (sixteen && !(frames == 1 && operation->keeps_depth))
        return magpie_refuse(error, error_length, "only resize, crop, embed, rotate, flip and flatten work on stills with 16 bits a sample");
    const unsigned char *pixels = bitmap->pixels;
    VipsImage *rgba = sixteen ? magpie_wrap_rgba16(pixels, width, height) : magpie_wrap_rgba(pixels, width, height * frames), *out = NULL;
    if (!rgba) {
        magpie_take_error(error, error_length, "could not wrap the pixels");
        return MAGPIE_STATUS_FAILED;
    }
    // One answer for all frames, so every frame is worked on the same way.
    int opaque = magpie_is_opaque_samples(pixels, pixel_count, bitmap->sample_bytes);
    magpie_crop_box box = {0, 0, 0};
    magpie_status status = frames == 1 ? magpie_apply_operation(rgba, opaque, operation, &box, &out, error, error_length)
                                       : magpie_plan_frames(rgba, pixels, NULL, frames, opaque, operation, result, error, error_length);
    g_object_unref(rgba);
    if (status != MAGPIE_STATUS_OK) {
        if (out) g_object_unref(out);
        return status;
    }
    // What `magpie_render` weighs to choose between this thread and libvips' thread pool.
    result->source.width = width;
    result->source.height = height;
    if (frames > 1) return MAGPIE_STATUS_OK;
    result->sample_bytes = sixteen ? 2 : 1;
    result->handle = out;
    result->frames = 1;
    result->width = vips_image_get_width(out);
    result->height = vips_image_get_height(out);
    return MAGPIE_STATUS_OK;
}

void magpie_round_corners(unsigned char *pixels, int width, int height, double across, double down) {
    if (across > width / 2.0) across = width / 2.0;
    if (down > height / 2.0) down = height / 2.0;
    if (across <= 0 || down <= 0) return;
    for (int row = 0; row < (int)ceil(down); row++) {
        for (int column = 0; column < (int)ceil(across); column++) {
            // From the pixel's centre to the arc's centre, for the top-left corner; the other
            // three corners mirror it.
            double dx = across - (column + 0.5), dy = down - (row + 0.5);
            if (dx <= 0 || dy <= 0) continue;
            double coverage;
            if (across == down) {
                coverage = across - sqrt(dx * dx + dy * dy) + 0.5;
            } else {
                // An ellipse: the distance to its edge, to first order, is how far the
                // normalised radius is from 1 over how fast it grows there.
                double u = dx / across, v = dy / down, reach = sqrt(u * u + v * v);
                double growth = sqrt((u / across) * (u / across) + (v / down) * (v / down)) / reach;
                coverage = (1 - reach) / growth + 0.5;
            }
            if (coverage >= 1) continue;
            if (coverage < 0) coverage = 0;
            int xs[2] = {column, width - 1 - column}, ys[2] = {row, height - 1 - row};
            for (int i = 0; i < 2; i++) {
                for (int j = 0; j < 2; j++) {
                    // On an odd side the middle pixel is reached twice; scale it once.
                    if (i == 1 && xs[1] == xs[0]) continue;
                    if (j == 1 && ys[1] == ys[0]) continue;
                    unsigned char *alpha = pixels + ((size_t)ys[j] * width + xs[i]) * 4 + 3;
                    *alpha = (unsigned char)lround(*alpha * coverage);
                }
            }
        }
    }
}
