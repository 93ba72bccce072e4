#ifndef MAGPIE_TEXT_H
#define MAGPIE_TEXT_H

#include <stddef.h>

#include "magpie_runtime.h"

/// Renders `text` (Pango markup allowed) as an 8-bit coverage mask, `height_pixels` tall at
/// most, with the system's sans-serif font; `*width` by `*height` bytes, freed with
/// `magpie_free_text`. libvips must be started (Magpie's `VipsRuntime`).
magpie_status magpie_render_text(const char *text, int height_pixels, unsigned char **mask, int *width, int *height,
                                 char *error, size_t error_length);

void magpie_free_text(unsigned char *mask);

#endif
