// Cheap checks on a PNG's structure before libpng or libvips read it. Both trust a chunk's
// declared length and allocate it up front (a 20-byte file claiming a 1 GB text chunk costs
// 1 GB), and both inflate every byte of IDAT to find out there was too much (a 2 MB file
// whose image data inflates to 2 GB costs seconds). Chunks here must fit in the file, and
// the image data may inflate to no more than the header's size allows. The same inflate
// checks the zlib stream's integrity, and critical chunks' CRCs are checked too: libvips
// insists on neither. With these, libvips' own decode is strict enough, and no second
// (strict libpng) read is needed, which used to double the cost of every PNG.
#include "png_guard.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static uint32_t read32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void fail(char *error, size_t error_length, const char *text) {
    if (error && error_length) snprintf(error, error_length, "damaged PNG: %s", text);
}

int magpie_png_is_png(const void *data, size_t length) {
    return length >= 8 && memcmp(data, signature, 8) == 0;
}

magpie_status magpie_png_check_chunks(const void *data, size_t length, char *error, size_t error_length) {
    const unsigned char *bytes = data;
    size_t offset = 8;
    while (offset + 8 <= length) {
        uint32_t chunk_length = read32(bytes + offset);
        // Length, type, data and CRC must all be inside the file.
        if (chunk_length > 0x7fffffffu || (uint64_t)chunk_length + 12 > length - offset) {
            char text[96];
            snprintf(text, sizeof text, "the %.4s chunk claims %u bytes, more than the file holds", bytes + offset + 4,
                     chunk_length);
            fail(error, error_length, text);
            return MAGPIE_STATUS_FAILED;
        }
        // Critical chunks (an upper-case first letter) must be intact: libvips decodes a PNG
        // whose image data fails its CRC without complaint. Damaged ancillary chunks (text,
        // colour hints) are left to libvips, which drops them as browsers do.
        const unsigned char *type = bytes + offset + 4;
        if (!(type[0] & 0x20)) {
            uLong crc = crc32(crc32(0L, Z_NULL, 0), type, chunk_length + 4);
            if (crc != read32(type + 4 + chunk_length)) {
                char text[96];
                snprintf(text, sizeof text, "the %.4s chunk fails its CRC check", type);
                fail(error, error_length, text);
                return MAGPIE_STATUS_FAILED;
            }
        }
        if (memcmp(type, "IEND", 4) == 0) return MAGPIE_STATUS_OK;
        offset += (size_t)chunk_length + 12;
    }
    return MAGPIE_STATUS_OK;  // Ends early: libvips reports the truncation.
}

int magpie_png_is_animated(const void *data, size_t length) {
    if (!magpie_png_is_png(data, length)) return 0;
    const unsigned char *bytes = data;
    size_t offset = 8;
    while (offset + 8 <= length) {
        uint32_t chunk_length = read32(bytes + offset);
        const unsigned char *type = bytes + offset + 4;
        if (memcmp(type, "acTL", 4) == 0) return 1;
        if (memcmp(type, "IDAT", 4) == 0 || chunk_length > length - offset - 8) return 0;
        offset += (size_t)chunk_length + 12;
    }
    return 0;
}

// Bytes of filtered image data (one filter byte per row) for one pass of `width` x `height`.
static uint64_t pass_bytes(uint64_t width, uint64_t height, uint64_t bits_per_pixel) {
    if (width == 0 || height == 0) return 0;
    return height * (1 + (width * bits_per_pixel + 7) / 8);
}

static uint64_t expected_image_bytes(const unsigned char *ihdr) {
    uint64_t width = read32(ihdr), height = read32(ihdr + 4);
    unsigned depth = ihdr[8], colour = ihdr[9], interlace = ihdr[12];
    unsigned channels = colour == 2 ? 3 : colour == 4 ? 2 : colour == 6 ? 4 : 1;
    uint64_t bpp = (uint64_t)channels * depth;
    if (!interlace) return pass_bytes(width, height, bpp);
    // Adam7: each pass takes every n-th column and row starting at an offset.
    static const int start_x[7] = {0, 4, 0, 2, 0, 1, 0}, start_y[7] = {0, 0, 4, 0, 2, 0, 1};
    static const int step_x[7] = {8, 8, 4, 4, 2, 2, 1}, step_y[7] = {8, 8, 8, 4, 4, 2, 2};
    uint64_t total = 0;
    for (int pass = 0; pass < 7; pass++) {
        uint64_t w = width > (uint64_t)start_x[pass] ? (width - start_x[pass] + step_x[pass] - 1) / step_x[pass] : 0;
        uint64_t h = height > (uint64_t)start_y[pass] ? (height - start_y[pass] + step_y[pass] - 1) / step_y[pass] : 0;
        total += pass_bytes(w, h, bpp);
    }
    return total;
}

magpie_status magpie_png_check_data(const void *data, size_t length, char *error, size_t error_length) {
    const unsigned char *bytes = data;
    if (length < 33 || memcmp(bytes + 12, "IHDR", 4) != 0 || read32(bytes + 8) != 13) return MAGPIE_STATUS_OK;
    uint64_t allowed = expected_image_bytes(bytes + 16);
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) return MAGPIE_STATUS_OK;
    unsigned char scratch[1 << 16];
    uint64_t produced = 0;
    int status = Z_OK, fits = 1;
    size_t offset = 8;
    while (fits && status != Z_STREAM_END && offset + 12 <= length) {
        uint32_t chunk_length = read32(bytes + offset);
        if ((uint64_t)chunk_length + 12 > length - offset) break;
        if (memcmp(bytes + offset + 4, "IDAT", 4) == 0) {
            stream.next_in = (unsigned char *)bytes + offset + 8;
            stream.avail_in = chunk_length;
            while (stream.avail_in > 0 && status == Z_OK) {
                stream.next_out = scratch;
                stream.avail_out = sizeof scratch;
                status = inflate(&stream, Z_NO_FLUSH);
                produced += sizeof scratch - stream.avail_out;
                if (produced > allowed) {
                    fits = 0;
                    break;
                }
                if (status == Z_BUF_ERROR) status = Z_OK;
                if (stream.avail_out != 0 && status == Z_OK && stream.avail_in == 0) break;
            }
            if (status < 0 && status != Z_BUF_ERROR) break;
        }
        offset += (size_t)chunk_length + 12;
    }
    // A stream that merely stops early is truncation, which libvips reports by itself.
    int corrupt = fits && (status == Z_NEED_DICT || (status < 0 && status != Z_BUF_ERROR));
    char text[160];
    if (!fits) {
        snprintf(text, sizeof text, "the image data inflates past the %llu bytes its header allows",
                 (unsigned long long)allowed);
        fail(error, error_length, text);
    } else if (corrupt) {
        snprintf(text, sizeof text, "the compressed image data is corrupt (zlib: %s)",
                 stream.msg ? stream.msg : "data error");
        fail(error, error_length, text);
    }
    inflateEnd(&stream);
    return fits && !corrupt ? MAGPIE_STATUS_OK : MAGPIE_STATUS_FAILED;
}
