#include "shim_internal.h"

#include <stdint.h>
#include <string.h>
#include <glib.h>

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
    int partial_first_frame = 0;
    return magpie_gif_scan(data, length, &partial_first_frame);
}

static int read_16(const unsigned char *bytes) { return bytes[0] | (bytes[1] << 8); }

int magpie_gif_scan(const unsigned char *data, size_t length, int *partial_first_frame) {
    *partial_first_frame = 0;
    if (length < 13) return 0;
    const int screen_width = read_16(data + 6), screen_height = read_16(data + 8);
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
            const unsigned char *descriptor = data + offset;
            unsigned char image_flags = descriptor[9];
            offset += 10;
            if (image_flags & 0x80) offset += 3u << ((image_flags & 0x07) + 1);
            // The LZW minimum code size, then the compressed data.
            size_t image_data = offset;
            offset = offset + 1 < length ? skip_sub_blocks(data, length, offset + 1) : 0;
            if (offset) {
                frames++;
            } else if (frames == 0) {
                // Worth showing: some pixel data arrived, for a frame with pixels inside the screen.
                int left = read_16(descriptor + 1), top = read_16(descriptor + 3);
                int width = read_16(descriptor + 5), height = read_16(descriptor + 7);
                *partial_first_frame = image_data + 2 < length && width > 0 && height > 0 &&
                                       left + width <= screen_width && top + height <= screen_height;
            }
        } else {
            break;  // Not a block GIF defines: what follows is not trusted.
        }
        if (offset == 0) break;
    }
    return frames;
}

// 256 greys, index i drawn as (i, i, i): what Pillow shows for a GIF without colour tables.
#define DEFAULT_TABLE_BYTES (256 * 3)

unsigned char *magpie_gif_with_default_palette(const unsigned char *data, size_t length, size_t *patched_length) {
    if (length < 13 || (data[10] & 0x80)) return NULL;
    unsigned char *patched = g_malloc(length + DEFAULT_TABLE_BYTES);
    memcpy(patched, data, 13);
    // A global table of 2^(7+1) entries; the colour resolution bits are kept.
    patched[10] = (unsigned char)((data[10] & 0x70) | 0x80 | 0x07);
    for (int index = 0; index < 256; index++) memset(patched + 13 + 3 * index, index, 3);
    memcpy(patched + 13 + DEFAULT_TABLE_BYTES, data + 13, length - 13);
    *patched_length = length + DEFAULT_TABLE_BYTES;
    return patched;
}
