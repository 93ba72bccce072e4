#include "shim_internal.h"

#include <string.h>
#include <vips/vips.h>

// Computes the whole image on the calling thread, into one region, and copies its rows out.
magpie_status magpie_render_here(VipsImage *image, unsigned char *destination, char *error, size_t error_length) {
    VipsRegion *region = vips_region_new(image);
    VipsRect all = {0, 0, image->Xsize, image->Ysize};
    if (!region || vips_region_prepare(region, &all)) {
        if (region) g_object_unref(region);
        magpie_take_error(error, error_length, "decoding failed");
        return MAGPIE_STATUS_FAILED;
    }
    size_t row = VIPS_IMAGE_SIZEOF_LINE(image);
    for (int y = 0; y < image->Ysize; y++) memcpy(destination + row * y, VIPS_REGION_ADDR(region, 0, y), row);
    g_object_unref(region);
    return MAGPIE_STATUS_OK;
}
