#include "magpie_texture.h"

static inline uint8_t clamped(long value) {
    return value < 0 ? 0 : value > 255 ? 255 : (uint8_t)value;
}

void magpie_texture(uint8_t *rgba, int width, int height, uint32_t seed) {
    uint32_t state = seed * 2654435761u | 1u;
    const int hue = (int)(seed % 3);
    const long across = width > 1 ? width : 1, down = height > 1 ? height : 1;
    const long corner = width + height > 1 ? width + height : 1;
    for (long y = 0; y < height; y++) {
        for (long x = 0; x < width; x++) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            const long noise = state & 31;
            const long stripe = ((x / 24 + y / 24) & 1) * 40;
            // The gradients, in the order the seed's hue rotates them through the channels.
            const long gradients[3] = {x * 255 / across, y * 255 / down, (x + y) * 127 / corner};
            uint8_t *pixel = rgba + (y * width + x) * 4;
            for (int channel = 0; channel < 3; channel++) {
                pixel[channel] = clamped(gradients[(channel + hue) % 3] + noise + stripe);
            }
        }
    }
}
