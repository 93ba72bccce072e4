// A colour behind the image: a larger canvas (embed), or an opaque ground (flatten).
#include "shim_internal.h"

#include <vips/vips.h>

typedef struct {
    int width, height, x, y;
    double background[4];
} canvas_arguments;

static int colour_in_range(const double *colour, int bands) {
    for (int band = 0; band < bands; band++)
        if (!(colour[band] >= 0 && colour[band] <= 255)) return 0;
    return 1;
}

static int apply_embed(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)opaque, (void)box;
    const canvas_arguments *canvas = arguments;
    VipsArrayDouble *background = magpie_colour_for(rgba, canvas->background, 4);
    int failed = vips_embed(rgba, out, canvas->x, canvas->y, canvas->width, canvas->height, "extend", VIPS_EXTEND_BACKGROUND,
                            "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return failed;
}

magpie_status magpie_embed(const magpie_bitmap *bitmap, int width, int height, int x, int y, const double background[4],
                           magpie_image *result, char *error, size_t error_length) {
    if (width < bitmap->width || height < bitmap->height || x < 0 || y < 0 || x > width - bitmap->width ||
        y > height - bitmap->height)
        return magpie_refuse(error, error_length, "the canvas must hold the whole image");
    if (!colour_in_range(background, 4)) return magpie_refuse(error, error_length, "colour components are 0 to 255");
    canvas_arguments canvas = {width, height, x, y, {background[0], background[1], background[2], background[3]}};
    magpie_operation operation = {apply_embed, &canvas, sizeof canvas, 1};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}

// Onto an opaque colour.
static int apply_flatten(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)opaque, (void)box;
    int sixteen = magpie_is_sixteen(rgba);
    VipsArrayDouble *background = magpie_colour_for(rgba, arguments, 3);
    VipsImage *flat = NULL, *bytes = NULL;
    int failed = vips_flatten(rgba, &flat, "background", background, "max_alpha", magpie_max_alpha(sixteen), NULL) ||
                 vips_cast(flat, &bytes, sixteen ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR, NULL) ||
                 vips_bandjoin_const1(bytes, out, magpie_max_alpha(sixteen), NULL);
    vips_area_unref(VIPS_AREA(background));
    if (flat) g_object_unref(flat);
    if (bytes) g_object_unref(bytes);
    return failed ? -1 : 0;
}

magpie_status magpie_flatten(const magpie_bitmap *bitmap, const double colour[3], magpie_image *result, char *error,
                             size_t error_length) {
    if (!colour_in_range(colour, 3)) return magpie_refuse(error, error_length, "colour components are 0 to 255");
    double ground[3] = {colour[0], colour[1], colour[2]};
    magpie_operation operation = {apply_flatten, ground, sizeof ground, 1};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}
