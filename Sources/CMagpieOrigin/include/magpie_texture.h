// The generated images of the loopback origin (MagpieOrigin): their pixels are made here, in C,
// because a Swift loop over every pixel is slow in debug builds (the demo's first run and every
// test build are debug builds): 12-megapixel textures took 3 s each.
#ifndef MAGPIE_TEXTURE_H
#define MAGPIE_TEXTURE_H
#include <stdint.h>

/// Fills the RGB samples of `rgba` (`width` x `height` pixels, 4 bytes each; alpha is left as
/// it is) with a texture: three gradients rotated by `seed`, a 24-pixel checkerboard and
/// xorshift noise seeded by `seed`. The same seed and size give the same bytes.
void magpie_texture(uint8_t *rgba, int width, int height, uint32_t seed);

#endif
