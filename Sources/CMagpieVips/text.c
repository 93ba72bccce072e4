#include "magpie_text.h"
#include "shim_internal.h"

#include <stdio.h>
#include <vips/vips.h>

// Text as an 8-bit coverage mask, from libvips' Pango rendering: labels on the demo's
// generated images now, text watermarks later.
magpie_status magpie_render_text(const char *text, int height_pixels, unsigned char **mask, int *width, int *height, char *error,
                                 size_t error_length) {
    *mask = NULL;
    *width = 0;
    *height = 0;
    VipsImage *rendered = NULL;
    // The font size is in points at the given dpi; 72 dpi makes a point one pixel.
    char font[64];
    snprintf(font, sizeof font, "sans bold %d", height_pixels > 4 ? height_pixels * 3 / 4 : 3);
    if (vips_text(&rendered, text, "font", font, "dpi", 72, NULL)) {
        magpie_take_error(error, error_length, "could not render text");
        return MAGPIE_STATUS_FAILED;
    }
    size_t size = 0;
    void *bytes = vips_image_write_to_memory(rendered, &size);
    *width = vips_image_get_width(rendered);
    *height = vips_image_get_height(rendered);
    g_object_unref(rendered);
    if (!bytes || size != (size_t)*width * *height) {
        g_free(bytes);
        magpie_set_error(error, error_length, "unexpected text image layout");
        return MAGPIE_STATUS_FAILED;
    }
    *mask = bytes;
    return MAGPIE_STATUS_OK;
}

void magpie_free_text(unsigned char *mask) { g_free(mask); }

magpie_status magpie_render_text_rgba(const char *markup, int font_pixels, unsigned char **pixels, int *width, int *height,
                                      char *error, size_t error_length) {
    *pixels = NULL;
    *width = 0;
    *height = 0;
    VipsImage *rendered = NULL, *flat = NULL;
    char font[64];
    snprintf(font, sizeof font, "sans %d", font_pixels > 1 ? font_pixels : 1);
    // Colours come from the markup; text without any is drawn black.
    if (vips_text(&rendered, markup, "font", font, "dpi", 72, "rgba", TRUE, NULL) ||
        vips_cast_uchar(rendered, &flat, NULL)) {
        if (rendered) g_object_unref(rendered);
        magpie_take_error(error, error_length, "could not render text");
        return MAGPIE_STATUS_FAILED;
    }
    g_object_unref(rendered);
    size_t size = 0;
    void *bytes = flat->Bands == 4 ? vips_image_write_to_memory(flat, &size) : NULL;
    *width = vips_image_get_width(flat);
    *height = vips_image_get_height(flat);
    g_object_unref(flat);
    if (!bytes || size != (size_t)*width * *height * 4) {
        g_free(bytes);
        magpie_set_error(error, error_length, "unexpected text image layout");
        return MAGPIE_STATUS_FAILED;
    }
    *pixels = bytes;
    return MAGPIE_STATUS_OK;
}
