// Keeping part of an image: a rectangle, or a size placed by gravity (an edge, the centre, or
// libvips' smart crop).
#include "shim_internal.h"

#include <stdio.h>
#include <vips/vips.h>

int magpie_crop_by_gravity(VipsImage *in, int width, int height, magpie_gravity gravity, magpie_crop_box *box, VipsImage **out) {
    int image_width = vips_image_get_width(in), image_height = vips_image_get_height(in);
    width = width < image_width ? width : image_width;
    height = height < image_height ? height : image_height;
    if (box->known) return vips_extract_area(in, out, box->left, box->top, width, height, NULL);
    if (gravity == MAGPIE_GRAVITY_ATTENTION || gravity == MAGPIE_GRAVITY_ENTROPY) {
        VipsInteresting interesting =
            gravity == MAGPIE_GRAVITY_ATTENTION ? VIPS_INTERESTING_ATTENTION : VIPS_INTERESTING_ENTROPY;
        if (vips_smartcrop(in, out, width, height, "interesting", interesting, NULL)) return -1;
        // libvips' smart crop ends in an extract_area, which records the box it kept as a
        // negative offset.
        *box = (magpie_crop_box){1, VIPS_CLIP(0, -(*out)->Xoffset, image_width - width),
                          VIPS_CLIP(0, -(*out)->Yoffset, image_height - height)};
        return 0;
    }
    int left = (image_width - width) / 2, top = (image_height - height) / 2;
    switch (gravity) {
    case MAGPIE_GRAVITY_NORTH: top = 0; break;
    case MAGPIE_GRAVITY_SOUTH: top = image_height - height; break;
    case MAGPIE_GRAVITY_EAST: left = image_width - width; break;
    case MAGPIE_GRAVITY_WEST: left = 0; break;
    default: break;
    }
    *box = (magpie_crop_box){1, left, top};
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

int magpie_crop_fits(const magpie_crop_area *area, int width, int height, char *text, size_t length) {
    if (area->width <= 0 || area->height <= 0) {
        snprintf(text, length, "the area must be at least 1x1");
        return 0;
    }
    if (area->by_gravity) return 1;
    if (area->x >= 0 && area->y >= 0 && area->x <= width - area->width && area->y <= height - area->height) return 1;
    snprintf(text, length, "the rectangle %dx%d at (%d, %d) is not inside the %dx%d image", area->width, area->height, area->x,
             area->y, width, height);
    return 0;
}

int magpie_crop_apply(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)opaque;
    const magpie_crop_area *area = arguments;
    if (area->by_gravity) return magpie_crop_by_gravity(rgba, area->width, area->height, area->gravity, box, out);
    return vips_extract_area(rgba, out, area->x, area->y, area->width, area->height, NULL);
}

magpie_status magpie_crop(const magpie_bitmap *bitmap, const magpie_crop_area *area, magpie_image *result, char *error,
                          size_t error_length) {
    char text[160];
    if (!magpie_crop_fits(area, bitmap->width, bitmap->height, text, sizeof text)) return magpie_refuse(error, error_length, text);
    magpie_operation operation = {magpie_crop_apply, area, sizeof *area, 1};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}
