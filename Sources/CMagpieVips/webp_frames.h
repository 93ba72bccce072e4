// An animated WebP's frames from libwebp's own animation decoder.
#ifndef MAGPIE_WEBP_FRAMES_H
#define MAGPIE_WEBP_FRAMES_H

#include "magpie_decode.h"

#include <stddef.h>

typedef struct magpie_webp_frames magpie_webp_frames;

/// Opens an animated WebP for its `frames` frames of `width` x `height` (the canvas libvips
/// read from the header), decoded in order by libwebp's animation decoder. libvips' loader
/// hands frames out a row at a time through a line cache and took twice libwebp's time; this
/// one writes each frame straight into place. NULL where libvips must read the file: an ICC
/// profile to apply, a canvas or frame count other than given, data libwebp refuses. `data`
/// must outlive the result.
magpie_webp_frames *magpie_webp_frames_open(const void *data, size_t length, int width, int height, int frames);

/// Frame `index`, which must be the one after the last asked for (0 first), as straight RGBA
/// into `destination` (width x height x 4 bytes).
magpie_status magpie_webp_frames_next(magpie_webp_frames *frames, int index, unsigned char *destination, char *error,
                                      size_t error_length);

void magpie_webp_frames_close(magpie_webp_frames *frames);

#endif
