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

/// Renders `markup` (Pango markup: colours, weights, sizes) as RGBA8 with straight alpha, in
/// the system's sans-serif font of `font_pixels` pixels unless the markup says otherwise;
/// text with no colour is black. Freed with `magpie_free_text`.
magpie_status magpie_render_text_rgba(const char *markup, int font_pixels, unsigned char **pixels, int *width, int *height,
                                      char *error, size_t error_length);

#endif
