// Pixelation: blocks averaged.
#include "shim_internal.h"

#include <vips/vips.h>

// Each block becomes its average. The image is mirrored out to whole blocks first, so the
// blocks on the right and bottom edges average only what is near them, and cut back after.
static int apply_pixelate(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)box;
    int size = *(const int *)arguments;
    int width = vips_image_get_width(rgba), height = vips_image_get_height(rgba);
    int longer = width > height ? width : height;
    if (size > longer) size = longer;
    int padded_width = (width + size - 1) / size * size, padded_height = (height + size - 1) / size * size;
    VipsImage *current = NULL, *next = NULL;
    if (magpie_prepare_for_filtering(rgba, opaque, &current)) return -1;
    if (padded_width > width || padded_height > height) {
        if (vips_embed(current, &next, 0, 0, padded_width, padded_height, "extend", VIPS_EXTEND_MIRROR, NULL)) goto fail;
        magpie_replace(&current, next);
    }
    if (vips_shrink(current, &next, size, size, NULL)) goto fail;
    magpie_replace(&current, next);
    if (vips_zoom(current, &next, size, size, NULL)) goto fail;
    magpie_replace(&current, next);
    if (padded_width > width || padded_height > height) {
        if (vips_extract_area(current, &next, 0, 0, width, height, NULL)) goto fail;
        magpie_replace(&current, next);
    }
    int failed = magpie_finish_filtering(current, opaque, magpie_is_sixteen(rgba), out);
    g_object_unref(current);
    return failed;
fail:
    g_object_unref(current);
    return -1;
}

magpie_status magpie_pixelate(const magpie_bitmap *bitmap, int size, magpie_image *result, char *error, size_t error_length) {
    if (size < 2) return magpie_refuse(error, error_length, "blocks must be at least 2 pixels");
    magpie_operation operation = {apply_pixelate, &size, sizeof size, 0};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}
