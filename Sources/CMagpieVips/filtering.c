// What the operations that resample, blur or blend share: the bitmap's depth, colours at that
// depth, and the premultiplied (or alpha-less) form they filter in.
#include "shim_internal.h"

#include <vips/vips.h>

void magpie_replace(VipsImage **current, VipsImage *next) {
    g_object_unref(*current);
    *current = next;
}

int magpie_is_sixteen(VipsImage *rgba) { return vips_image_get_format(rgba) == VIPS_FORMAT_USHORT; }

double magpie_max_alpha(int sixteen) { return sixteen ? 65535.0 : 255.0; }

VipsArrayDouble *magpie_colour_for(VipsImage *rgba, const double *colour, int bands) {
    double levels[4];
    for (int band = 0; band < bands; band++) levels[band] = colour[band] * (magpie_is_sixteen(rgba) ? 257.0 : 1.0);
    return vips_array_double_new(levels, bands);
}

int magpie_prepare_for_filtering(VipsImage *rgba, int opaque, VipsImage **out) {
    if (opaque) return vips_extract_band(rgba, out, 0, "n", 3, NULL);
    return vips_premultiply(rgba, out, "max_alpha", magpie_max_alpha(magpie_is_sixteen(rgba)), NULL);
}

int magpie_finish_filtering(VipsImage *in, int opaque, int sixteen, VipsImage **out) {
    VipsImage *current = in;
    g_object_ref(current);
    VipsImage *next = NULL;
    if (opaque) {
        if (vips_bandjoin_const1(current, &next, magpie_max_alpha(sixteen), NULL)) goto fail;
    } else {
        if (vips_unpremultiply(current, &next, "max_alpha", magpie_max_alpha(sixteen), NULL)) goto fail;
    }
    magpie_replace(&current, next);
    VipsBandFormat format = sixteen ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR;
    if (vips_image_get_format(current) != format) {
        if (vips_cast(current, &next, format, NULL)) goto fail;
        magpie_replace(&current, next);
    }
    if (sixteen && vips_image_get_interpretation(current) != VIPS_INTERPRETATION_RGB16) {
        if (vips_copy(current, &next, "interpretation", VIPS_INTERPRETATION_RGB16, NULL)) goto fail;
        magpie_replace(&current, next);
    }
    *out = current;
    return 0;
fail:
    g_object_unref(current);
    return -1;
}
