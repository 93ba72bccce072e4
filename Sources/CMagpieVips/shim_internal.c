#include "shim_internal.h"

#include <string.h>
#include <vips/vips.h>

// libvips keeps one error buffer for the whole process; take its text right after a
// failure so that a later failure elsewhere cannot overwrite it.
void magpie_take_error(char *error, size_t error_length, const char *fallback) {
    char *message = vips_error_buffer_copy();
    const char *text = (message && message[0]) ? message : fallback;
    if (error && error_length > 0) {
        strncpy(error, text, error_length - 1);
        error[error_length - 1] = '\0';
        size_t n = strlen(error);
        while (n > 0 && (error[n - 1] == '\n' || error[n - 1] == ' ')) error[--n] = '\0';
    }
    g_free(message);
}

void magpie_set_error(char *error, size_t error_length, const char *text) {
    if (error && error_length > 0) {
        strncpy(error, text, error_length - 1);
        error[error_length - 1] = '\0';
    }
}

VipsImage *magpie_wrap_rgba(const unsigned char *pixels, int width, int rows) {
    VipsImage *image = vips_image_new_from_memory(pixels, (size_t)width * rows * 4, width, rows, 4, VIPS_FORMAT_UCHAR);
    if (image) image->Type = VIPS_INTERPRETATION_sRGB;
    return image;
}

VipsImage *magpie_wrap_rgba16(const unsigned char *pixels, int width, int rows) {
    VipsImage *image = vips_image_new_from_memory(pixels, (size_t)width * rows * 8, width, rows, 4, VIPS_FORMAT_USHORT);
    if (image) image->Type = VIPS_INTERPRETATION_RGB16;
    return image;
}
