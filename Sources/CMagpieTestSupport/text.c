#include "magpie_test_support.h"

#include <stdio.h>
#include <string.h>
#include <vips/vips.h>

static void copy_error(char *error, size_t error_length, const char *fallback) {
    char *message = vips_error_buffer_copy();
    const char *text = (message && message[0]) ? message : fallback;
    if (error && error_length > 0) {
        strncpy(error, text, error_length - 1);
        error[error_length - 1] = '\0';
    }
    g_free(message);
}

int magpie_render_text(const char *text, int height_pixels, unsigned char **mask, int *width, int *height, char *error,
                       size_t error_length) {
    *mask = NULL;
    *width = 0;
    *height = 0;
    VipsImage *rendered = NULL;
    // The font size is in points at the given dpi; 72 dpi makes a point one pixel.
    char font[64];
    snprintf(font, sizeof font, "sans bold %d", height_pixels > 4 ? height_pixels * 3 / 4 : 3);
    if (vips_text(&rendered, text, "font", font, "dpi", 72, NULL)) {
        copy_error(error, error_length, "could not render text");
        return -1;
    }
    size_t size = 0;
    void *bytes = vips_image_write_to_memory(rendered, &size);
    *width = vips_image_get_width(rendered);
    *height = vips_image_get_height(rendered);
    g_object_unref(rendered);
    if (!bytes || size != (size_t)*width * *height) {
        g_free(bytes);
        copy_error(error, error_length, "unexpected text image layout");
        return -1;
    }
    *mask = bytes;
    return 0;
}

void magpie_free_text(unsigned char *mask) { g_free(mask); }
