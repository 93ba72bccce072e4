// Quarter turns and mirrorings.
#include "shim_internal.h"

#include <vips/vips.h>

static int apply_rotate(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)opaque, (void)box;
    int degrees = *(const int *)arguments;
    VipsAngle turn = degrees == 90 ? VIPS_ANGLE_D90 : degrees == 180 ? VIPS_ANGLE_D180 : VIPS_ANGLE_D270;
    return vips_rot(rgba, out, turn, NULL);
}

magpie_status magpie_rotate(const magpie_bitmap *bitmap, int degrees, magpie_image *result, char *error, size_t error_length) {
    if (degrees != 90 && degrees != 180 && degrees != 270) return magpie_refuse(error, error_length, "the angle must be 90, 180 or 270");
    magpie_operation operation = {apply_rotate, &degrees, sizeof degrees, 1};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}

typedef struct {
    int horizontal, vertical;
} mirrorings;

static int apply_flip(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)opaque, (void)box;
    const mirrorings *flip = arguments;
    VipsImage *current = rgba, *next = NULL;
    g_object_ref(current);
    if (flip->horizontal) {
        if (vips_flip(current, &next, VIPS_DIRECTION_HORIZONTAL, NULL)) goto fail;
        magpie_replace(&current, next);
    }
    if (flip->vertical) {
        if (vips_flip(current, &next, VIPS_DIRECTION_VERTICAL, NULL)) goto fail;
        magpie_replace(&current, next);
    }
    *out = current;
    return 0;
fail:
    g_object_unref(current);
    return -1;
}

magpie_status magpie_flip(const magpie_bitmap *bitmap, int horizontal, int vertical, magpie_image *result, char *error,
                          size_t error_length) {
    mirrorings flip = {horizontal, vertical};
    magpie_operation operation = {apply_flip, &flip, sizeof flip, 1};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}
