#include "magpie_decode.h"
#include "shim_internal.h"

#include <vips/vips.h>

// What decoding and processing hand to Swift: rendered into Swift's memory, then freed.

// Below this source size libvips' thread pool costs more than it saves: handing a small image's few
// tiles to worker threads and back took longer than decoding them (a warm load of 240 cached
// 256 px thumbnails spent more time in thread switches and GLib locks than in libjpeg).
#define SMALL_IMAGE_PIXELS (512 * 512)

magpie_status magpie_render(magpie_image *image, unsigned char *destination, size_t length,
                       char *error, size_t error_length) {
    if (image->frame_plan) return magpie_render_frames(image, destination, length, error, error_length);
    VipsImage *rgba = image->handle;
    if (!rgba || length != VIPS_IMAGE_SIZEOF_IMAGE(rgba)) {
        magpie_set_error(error, error_length, "the destination does not fit the image");
        return MAGPIE_STATUS_FAILED;
    }
    // The source's size measures the work, not the output's: a 256 px thumbnail of a 12 MP
    // photo still has 12 MP to shrink. (Animations render frame by frame, above.)
    uint64_t source_pixels = (uint64_t)image->source.width * (uint64_t)image->source.height;
    if (source_pixels > 0 && source_pixels <= SMALL_IMAGE_PIXELS) return magpie_render_here(rgba, destination, error, error_length);
    // What vips_image_write_to_memory does, into the caller's buffer instead of a new one.
    VipsImage *target = vips_image_new_from_memory(destination, length, rgba->Xsize, rgba->Ysize,
                                                   rgba->Bands, rgba->BandFmt);
    if (!target) {
        magpie_take_error(error, error_length, "decoding failed");
        return MAGPIE_STATUS_FAILED;
    }
    int failed = vips_image_write(rgba, target);
    g_object_unref(target);
    if (failed) {
        magpie_take_error(error, error_length, "decoding failed");
        return MAGPIE_STATUS_FAILED;
    }
    return MAGPIE_STATUS_OK;
}

void magpie_free_image(magpie_image *image) {
    if (!image) return;
    if (image->handle) {
        g_object_unref(image->handle);
        image->handle = NULL;
    }
    magpie_free_frames(image);
    g_free(image->delays);
    image->delays = NULL;
    g_free(image->owned_data);
    image->owned_data = NULL;
}
