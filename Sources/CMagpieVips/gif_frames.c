#include "shim_internal.h"

#include <stdint.h>

// Skips a chain of GIF data sub-blocks (a length byte, that many bytes, ... a zero length).
// Returns the offset after the terminator, or 0 when the data ends first.
static size_t skip_sub_blocks(const unsigned char *data, size_t length, size_t offset) {
    while (offset < length) {
        size_t size = data[offset];
        offset += 1;
        if (size == 0) return offset;
        offset += size;
    }
    return 0;
}

// Walks the GIF's blocks (not its pixel data) and counts image blocks whose data is all
// there. libvips counts a frame whose data was cut off, and shows it half drawn.
int magpie_gif_complete_frames(const unsigned char *data, size_t length) {
    if (length < 13) return 0;
    size_t offset = 13;
    unsigned char flags = data[10];
    if (flags & 0x80) offset += 3u << ((flags & 0x07) + 1);
    int frames = 0;
    while (offset < length) {
        unsigned char introducer = data[offset];
        if (introducer == 0x3B) break;
        if (introducer == 0x21) {
            if (offset + 2 > length) break;
            offset = skip_sub_blocks(data, length, offset + 2);
        } else if (introducer == 0x2C) {
            if (offset + 10 > length) break;
            unsigned char image_flags = data[offset + 9];
            offset += 10;
            if (image_flags & 0x80) offset += 3u << ((image_flags & 0x07) + 1);
            // The LZW minimum code size, then the compressed data.
            offset = offset + 1 < length ? skip_sub_blocks(data, length, offset + 1) : 0;
            if (offset) frames++;
        } else {
            break;  // Not a block GIF defines: what follows is not trusted.
        }
        if (offset == 0) break;
    }
    return frames;
}
