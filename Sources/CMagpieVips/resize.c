// Bringing an image to a box: reducing (a box average, then Lanczos-3), enlarging, and a fill's
// crop.
#include "shim_internal.h"

#include <math.h>
#include <vips/vips.h>

// Reducing by a large factor: a box average by the integer part that leaves at least a factor
// of three, then Lanczos-3 for the rest (Pillow's `reducing_gap`; libvips' own resize leaves
// two). The box step is a fraction of the cost of a Lanczos kernel wide enough for the whole
// factor, and what it averages away lies far above what the Lanczos step keeps.
static int reduce(VipsImage *in, double target_width, double target_height, VipsImage **out) {
    int width = vips_image_get_width(in), height = vips_image_get_height(in);
    int target_w = (int)fmax(1, round(target_width)), target_h = (int)fmax(1, round(target_height));
    int horizontal = (int)floor((double)width / target_w / 3.0), vertical = (int)floor((double)height / target_h / 3.0);
    horizontal = horizontal < 1 ? 1 : horizontal;
    vertical = vertical < 1 ? 1 : vertical;
    VipsImage *shrunk = in;
    g_object_ref(shrunk);
    if (horizontal > 1 || vertical > 1) {
        VipsImage *next = NULL;
        if (vips_shrink(in, &next, horizontal, vertical, NULL)) {
            g_object_unref(shrunk);
            return -1;
        }
        magpie_replace(&shrunk, next);
    }
    double residual_h = (double)vips_image_get_width(shrunk) / target_w;
    double residual_v = (double)vips_image_get_height(shrunk) / target_h;
    if (residual_h == 1.0 && residual_v == 1.0) {
        *out = shrunk;
        return 0;
    }
    int failed = vips_reduce(shrunk, out, residual_h, residual_v, "kernel", VIPS_KERNEL_LANCZOS3, NULL);
    g_object_unref(shrunk);
    return failed;
}

// Enlarging along one axis only. libvips' resize filters the axis it leaves at scale 1 as
// well, half a pixel off (a 5x3 stretched to 36x3 turns a row of 200 into 110); an affine
// transform that maps pixel centres onto pixel centres leaves that axis exactly as it was.
static int enlarge_one_axis(VipsImage *in, double hscale, double vscale, VipsImage **out) {
    int width = (int)fmax(1, round(vips_image_get_width(in) * hscale));
    int height = (int)fmax(1, round(vips_image_get_height(in) * vscale));
    VipsInterpolate *bicubic = vips_interpolate_new("bicubic");
    if (!bicubic) return -1;
    // output = scale * (input + 0.5) - 0.5: centres onto centres.
    VipsArrayInt *area = vips_array_int_newv(4, 0, 0, width, height);
    int failed = vips_affine(in, out, hscale, 0, 0, vscale, "interpolate", bicubic, "idx", 0.5, "idy", 0.5, "odx", -0.5, "ody", -0.5,
                             "oarea", area, "extend", VIPS_EXTEND_COPY, NULL);
    vips_area_unref(VIPS_AREA(area));
    g_object_unref(bicubic);
    return failed;
}

// The resized image, or the window of it the box asks for (a new reference either way).
static int keep_window(VipsImage *resized, const magpie_resize_box *target, VipsImage **out) {
    if (target->window_width <= 0 || target->window_height <= 0) {
        g_object_ref(resized);
        *out = resized;
        return 0;
    }
    return vips_extract_area(resized, out, target->window_x, target->window_y, target->window_width, target->window_height, NULL);
}

static int apply_resize(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    const magpie_resize_box *target = arguments;
    double actual_width = vips_image_get_width(rgba), actual_height = vips_image_get_height(rgba);
    // The output is sized from the whole image even when the bitmap holds it decoded smaller.
    int reduced = target->full_width > 0 && target->full_height > 0;
    double width = reduced ? target->full_width : actual_width;
    double height = reduced ? target->full_height : actual_height;
    double horizontal = target->width / width, vertical = target->height / height;
    magpie_fit_scales(target->fit, &horizontal, &vertical);
    if (!target->upscale) {
        horizontal = fmin(horizontal, 1.0);
        vertical = fmin(vertical, 1.0);
    }
    if (!reduced && horizontal == 1.0 && vertical == 1.0 && target->fit != MAGPIE_FIT_FILL) return keep_window(rgba, target, out);
    VipsImage *filtered = NULL, *resized = NULL, *finished = NULL;
    if (magpie_prepare_for_filtering(rgba, opaque, &filtered)) return -1;
    double hscale = width * horizontal / actual_width, vscale = height * vertical / actual_height;
    int failed = (hscale > 1.0 && vscale == 1.0) || (vscale > 1.0 && hscale == 1.0)
        ? enlarge_one_axis(filtered, hscale, vscale, &resized)
        : horizontal > 1.0 || vertical > 1.0
        ? vips_resize(filtered, &resized, hscale, "vscale", vscale, "kernel", VIPS_KERNEL_LANCZOS3, NULL)
        : reduce(filtered, width * horizontal, height * vertical, &resized);
    g_object_unref(filtered);
    if (failed) return -1;
    failed = magpie_finish_filtering(resized, opaque, magpie_is_sixteen(rgba), &finished);
    g_object_unref(resized);
    if (failed) return -1;
    if (target->fit != MAGPIE_FIT_FILL) {
        failed = keep_window(finished, target, out);
        g_object_unref(finished);
        return failed;
    }
    failed = magpie_crop_by_gravity(finished, target->width, target->height, target->gravity, box, out);
    g_object_unref(finished);
    return failed;
}

magpie_operation magpie_resize_operation(const magpie_resize_box *box) {
    return (magpie_operation){apply_resize, box, sizeof *box, 1};
}

magpie_status magpie_resize(const magpie_bitmap *bitmap, const magpie_resize_box *box, magpie_image *result, char *error,
                            size_t error_length) {
    if (box->width <= 0 || box->height <= 0) return magpie_refuse(error, error_length, "the box must be at least 1x1");
    int windowed = box->window_width > 0 && box->window_height > 0;
    if (windowed && (box->fit != MAGPIE_FIT_EXACT || box->window_x < 0 || box->window_y < 0 ||
                     box->window_x > box->width - box->window_width || box->window_y > box->height - box->window_height))
        return magpie_refuse(error, error_length, "a window must lie inside the box of an exact resize");
    magpie_operation operation = magpie_resize_operation(box);
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}
