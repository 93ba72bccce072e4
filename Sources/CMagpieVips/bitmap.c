// BMP and ICO, which libvips reads only through ImageMagick (never loaded by Magpie). BMP is
// decoded by stb_image and written by stb_image_write, the distribution's libstb (it depends on
// nothing but libc, so it shares the process with any libvips). An ICO's directory is read here
// and its largest entry decoded as what it holds: a PNG by libvips, a bitmap without its file
// header by stb_image once given one, its transparency mask applied here. stb_image reads no
// run-length-coded bitmap (Windows 3's RLE8 and RLE4), so those are expanded here first into the
// uncompressed bitmap they code.
#include "bitmap.h"
#include "png_guard.h"

#include <limits.h>
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#include <stdint.h>
#include <string.h>

static const uint8_t png_signature[8] = {0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A};

/// The largest side an icon directory entry can declare.
static const int icon_side_limit = 256;

static uint16_t read16(const uint8_t *bytes) { return (uint16_t)(bytes[0] | bytes[1] << 8); }
static uint32_t read32(const uint8_t *bytes) { return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 | (uint32_t)bytes[3] << 24; }
static uint32_t read32_big(const uint8_t *bytes) { return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3]; }
static void write16(uint8_t *bytes, uint16_t value) { bytes[0] = value & 0xFF; bytes[1] = value >> 8; }
static void write32(uint8_t *bytes, uint32_t value) {
    for (int i = 0; i < 4; i++) bytes[i] = (value >> (8 * i)) & 0xFF;
}

int magpie_bmp_is_bmp(const void *data, size_t length) {
    const uint8_t *bytes = data;
    return length >= 26 && bytes[0] == 'B' && bytes[1] == 'M';
}

int magpie_ico_is_ico(const void *data, size_t length) {
    const uint8_t *bytes = data;
    // Reserved 0, type 1 (an icon), entries, and the first entry's reserved byte 0: four
    // bytes of zeros and ones alone would also start other files.
    return length >= 22 && read16(bytes) == 0 && read16(bytes + 2) == 1 && read16(bytes + 4) >= 1 && bytes[9] == 0;
}

/// One entry of an icon: where its image lies and what it holds.
typedef struct {
    const uint8_t *bytes;
    size_t length;
    int is_png;
    int width;
    int height;
    /// A bitmap entry's header: bits a pixel, and where its pixels start and how long its rows are.
    int bits;
    size_t pixels_offset;
    size_t row_bytes;
} icon_entry;

static magpie_status icon_failure(char *error, size_t error_length, const char *text) {
    magpie_set_error(error, error_length, text);
    return MAGPIE_STATUS_FAILED;
}

/// Reads what a bitmap entry (a BITMAPINFOHEADER, its palette, the colour rows, then the
/// 1-bit transparency mask; the height counts both) says of itself.
static magpie_status read_bitmap_entry(icon_entry *entry, char *error, size_t error_length) {
    const uint8_t *dib = entry->bytes;
    if (entry->length < 40) return icon_failure(error, error_length, "the icon's bitmap header is cut off");
    uint32_t header_size = read32(dib);
    int32_t width = (int32_t)read32(dib + 4), doubled_height = (int32_t)read32(dib + 8);
    int bits = read16(dib + 14);
    uint32_t compression = read32(dib + 16), colours_used = read32(dib + 32);
    if (header_size < 40 || header_size > entry->length || width <= 0 || doubled_height <= 1 || bits == 0 || bits > 32 ||
        colours_used > 256)
        return icon_failure(error, error_length, "the icon's bitmap header does not describe an image");
    size_t palette = bits <= 8 ? (colours_used ? colours_used : 1u << bits) * 4 : 0;
    // A 40-byte header with bit fields keeps its three masks after it.
    size_t masks = compression == 3 && header_size == 40 ? 12 : 0;
    entry->width = width;
    entry->height = doubled_height / 2;
    entry->bits = bits;
    entry->pixels_offset = header_size + masks + palette;
    entry->row_bytes = (((size_t)width * (size_t)bits + 31) / 32) * 4;
    if (entry->pixels_offset > entry->length || entry->row_bytes * (size_t)entry->height > entry->length - entry->pixels_offset)
        return icon_failure(error, error_length, "the icon's bitmap is cut off");
    return MAGPIE_STATUS_OK;
}

/// The entry with the most pixels, then the most bits a pixel, as viewers pick the sharpest.
static magpie_status largest_entry(const uint8_t *data, size_t length, icon_entry *chosen, char *error, size_t error_length) {
    size_t count = read16(data + 4);
    size_t directory_end = 6 + 16 * count;
    if (length < directory_end) return icon_failure(error, error_length, "the icon directory is cut off");
    long best_area = 0;
    int best_bits = -1;
    for (size_t index = 0; index < count; index++) {
        const uint8_t *item = data + 6 + 16 * index;
        size_t size = read32(item + 8), offset = read32(item + 12);
        if (offset < directory_end || offset > length || size > length - offset || size < 24) continue;
        long area = (long)(item[0] ? item[0] : 256) * (item[1] ? item[1] : 256);
        int bits = read16(item + 6);
        if (area < best_area || (area == best_area && bits <= best_bits)) continue;
        best_area = area;
        best_bits = bits;
        chosen->bytes = data + offset;
        chosen->length = size;
    }
    if (best_bits < 0) return icon_failure(error, error_length, "no entry of the icon lies inside the file");
    chosen->is_png = memcmp(chosen->bytes, png_signature, sizeof png_signature) == 0;
    if (!chosen->is_png) return read_bitmap_entry(chosen, error, error_length);
    // The PNG's own header says its size: width and height follow the IHDR chunk's name.
    chosen->width = (int)read32_big(chosen->bytes + 16);
    chosen->height = (int)read32_big(chosen->bytes + 20);
    if (chosen->width <= 0 || chosen->height <= 0) return icon_failure(error, error_length, "the icon's PNG has no size");
    return MAGPIE_STATUS_OK;
}

enum { rle8 = 1, rle4 = 2 };

/// The compression a BMP's info header names; 0 when the header is too short to say.
static uint32_t bmp_compression(const uint8_t *bytes, size_t length) { return length >= 14 + 20 ? read32(bytes + 14 + 16) : 0; }

/// Sets one pixel's palette index in uncompressed rows of `bits` 8 or 4.
static void put_index(uint8_t *rows, size_t row_bytes, int bits, int x, int y, uint8_t index) {
    uint8_t *row = rows + row_bytes * (size_t)y;
    if (bits == 8) row[x] = index;
    else row[x / 2] = x % 2 ? (row[x / 2] & 0xF0) | (index & 0x0F) : (uint8_t)((row[x / 2] & 0x0F) | index << 4);
}

/// A run-length-coded BMP rewritten as the uncompressed one it codes (same headers and palette,
/// compression 0); NULL with `error` set when its headers are not those of one. Pixels the coding
/// skips (a delta, an early end) keep palette index 0, as Pillow leaves them.
static uint8_t *expand_rle(const uint8_t *data, size_t length, size_t *expanded_length, char *error, size_t error_length) {
    if (length < 14 + 40) {
        magpie_set_error(error, error_length, "the bitmap's header is cut off");
        return NULL;
    }
    size_t pixels_offset = read32(data + 10);
    int32_t width = (int32_t)read32(data + 18), height = (int32_t)read32(data + 22);
    int bits = read16(data + 28);
    uint32_t compression = read32(data + 30);
    if (width <= 0 || height <= 0 || pixels_offset < 14 + 40 || pixels_offset > length ||
        !((compression == rle8 && bits == 8) || (compression == rle4 && bits == 4))) {
        magpie_set_error(error, error_length, "the run-length-coded bitmap's header does not describe an image");
        return NULL;
    }
    size_t row_bytes = (((size_t)width * (size_t)bits + 31) / 32) * 4;
    if (row_bytes * (size_t)height > INT_MAX - pixels_offset) {
        magpie_set_error(error, error_length, "the bitmap is larger than a bitmap decoder reads");
        return NULL;
    }
    *expanded_length = pixels_offset + row_bytes * (size_t)height;
    uint8_t *expanded = g_malloc0(*expanded_length);
    memcpy(expanded, data, pixels_offset);
    write32(expanded + 2, (uint32_t)*expanded_length);
    write32(expanded + 30, 0);
    write32(expanded + 34, 0);
    uint8_t *rows = expanded + pixels_offset;
    const uint8_t *coded = data + pixels_offset;
    size_t available = length - pixels_offset, at = 0;
    int x = 0, y = 0;
    while (at + 2 <= available && y < height) {
        uint8_t count = coded[at], value = coded[at + 1];
        at += 2;
        if (count > 0) {
            // A run: the index (RLE8), or two indices taking turns (RLE4).
            for (int i = 0; i < count && x < width; i++, x++)
                put_index(rows, row_bytes, bits, x, y, bits == 8 ? value : (i % 2 ? value & 0x0F : value >> 4));
        } else if (value == 0) {
            x = 0;
            y++;
        } else if (value == 1) {
            break;
        } else if (value == 2) {
            if (at + 2 > available) break;
            // Held to the row's end: deltas add up, and runs only check x < width.
            x = MIN(x + coded[at], width);
            y += coded[at + 1];
            at += 2;
        } else {
            // Literal indices, padded to a 16-bit boundary.
            size_t literal_bytes = bits == 8 ? value : ((size_t)value + 1) / 2;
            if (at + literal_bytes > available) break;
            for (int i = 0; i < value && x < width; i++, x++)
                put_index(rows, row_bytes, bits, x, y, bits == 8 ? coded[at + i] : (i % 2 ? coded[at + i / 2] & 0x0F : coded[at + i / 2] >> 4));
            at += (literal_bytes + 1) & ~(size_t)1;
        }
    }
    return expanded;
}

magpie_status magpie_bitmap_size(const void *data, size_t length, magpie_format format, int *width, int *height,
                                 char *error, size_t error_length) {
    if (length > INT_MAX) return icon_failure(error, error_length, "the file is larger than a bitmap decoder reads");
    if (format == MAGPIE_FORMAT_ICO) {
        icon_entry entry = {0};
        magpie_status status = largest_entry(data, length, &entry, error, error_length);
        *width = entry.width;
        *height = entry.height;
        // A PNG entry gets the checks a PNG file gets before libvips reads it.
        if (status == MAGPIE_STATUS_OK && entry.is_png) return magpie_png_check_chunks(entry.bytes, entry.length, error, error_length);
        return status;
    }
    uint32_t compression = bmp_compression(data, length);
    if (compression == rle8 || compression == rle4) {
        // Only the header is read here; expanding checks the rest.
        if (length < 14 + 40) return icon_failure(error, error_length, "the bitmap's header is cut off");
        *width = (int32_t)read32((const uint8_t *)data + 18);
        *height = (int32_t)read32((const uint8_t *)data + 22);
        return *width > 0 && *height > 0 ? MAGPIE_STATUS_OK
                                         : icon_failure(error, error_length, "the run-length-coded bitmap's header does not describe an image");
    }
    int components = 0;
    if (!stbi_info_from_memory(data, (int)length, width, height, &components))
        return icon_failure(error, error_length, stbi_failure_reason() ? stbi_failure_reason() : "not a bitmap stb_image reads");
    return MAGPIE_STATUS_OK;
}

static void free_decoded(VipsImage *image, void *pixels) {
    (void)image;
    stbi_image_free(pixels);
}

/// stb_image's RGBA pixels as an image that frees them when it closes.
static VipsImage *wrap_decoded(unsigned char *pixels, int width, int height) {
    VipsImage *image = vips_image_new_from_memory(pixels, (size_t)width * height * 4, width, height, 4, VIPS_FORMAT_UCHAR);
    if (!image) {
        stbi_image_free(pixels);
        return NULL;
    }
    image->Type = VIPS_INTERPRETATION_sRGB;
    g_signal_connect(image, "postclose", G_CALLBACK(free_decoded), pixels);
    return image;
}

static unsigned char *decode_with_stb(const uint8_t *bytes, size_t length, int *width, int *height, const char *domain) {
    int components = 0;
    unsigned char *pixels = stbi_load_from_memory(bytes, (int)length, width, height, &components, 4);
    if (!pixels) vips_error(domain, "%s", stbi_failure_reason() ? stbi_failure_reason() : "stb_image could not decode it");
    return pixels;
}

/// Pixels whose bit is set in the icon's mask (rows bottom up, 1 bit a pixel) are transparent.
/// Entries of 32 bits a pixel carry their own alpha instead.
static void apply_icon_mask(const icon_entry *entry, unsigned char *pixels) {
    if (entry->bits >= 32) return;
    size_t mask_offset = entry->pixels_offset + entry->row_bytes * (size_t)entry->height;
    size_t mask_row = (((size_t)entry->width + 31) / 32) * 4;
    if (mask_offset > entry->length || mask_row * (size_t)entry->height > entry->length - mask_offset) return;
    const uint8_t *mask = entry->bytes + mask_offset;
    for (int y = 0; y < entry->height; y++) {
        const uint8_t *row = mask + mask_row * (size_t)(entry->height - 1 - y);
        for (int x = 0; x < entry->width; x++)
            if (row[x / 8] >> (7 - x % 8) & 1) pixels[((size_t)y * entry->width + x) * 4 + 3] = 0;
    }
}

/// A bitmap entry given the 14-byte file header it lacks, with the height of its colour rows.
static VipsImage *open_bitmap_entry(const icon_entry *entry) {
    size_t file_length = 14 + entry->length;
    uint8_t *file = g_malloc(file_length);
    file[0] = 'B';
    file[1] = 'M';
    write32(file + 2, (uint32_t)file_length);
    write32(file + 6, 0);
    write32(file + 10, (uint32_t)(14 + entry->pixels_offset));
    memcpy(file + 14, entry->bytes, entry->length);
    write32(file + 14 + 8, (uint32_t)entry->height);
    int width = 0, height = 0;
    unsigned char *pixels = decode_with_stb(file, file_length, &width, &height, "icoload");
    g_free(file);
    if (!pixels) return NULL;
    if (width != entry->width || height != entry->height) {
        stbi_image_free(pixels);
        vips_error("icoload", "the icon's bitmap decoded to another size than its header says");
        return NULL;
    }
    apply_icon_mask(entry, pixels);
    return wrap_decoded(pixels, width, height);
}

VipsImage *magpie_bitmap_open(const void *data, size_t length, magpie_format format) {
    char text[160] = "";
    if (length > INT_MAX) {
        vips_error("bitmapload", "the file is larger than a bitmap decoder reads");
        return NULL;
    }
    if (format == MAGPIE_FORMAT_BMP) {
        int width = 0, height = 0;
        uint32_t compression = bmp_compression(data, length);
        if (compression == rle8 || compression == rle4) {
            size_t expanded_length = 0;
            uint8_t *expanded = expand_rle(data, length, &expanded_length, text, sizeof text);
            if (!expanded) {
                vips_error("bmpload", "%s", text);
                return NULL;
            }
            unsigned char *pixels = decode_with_stb(expanded, expanded_length, &width, &height, "bmpload");
            g_free(expanded);
            return pixels ? wrap_decoded(pixels, width, height) : NULL;
        }
        unsigned char *pixels = decode_with_stb(data, length, &width, &height, "bmpload");
        return pixels ? wrap_decoded(pixels, width, height) : NULL;
    }
    icon_entry entry = {0};
    if (largest_entry(data, length, &entry, text, sizeof text) != MAGPIE_STATUS_OK) {
        vips_error("icoload", "%s", text);
        return NULL;
    }
    if (!entry.is_png) return open_bitmap_entry(&entry);
    VipsImage *image = NULL;
    if (vips_pngload_buffer((void *)entry.bytes, entry.length, &image, "access", VIPS_ACCESS_RANDOM, NULL)) return NULL;
    return image;
}

static void append_bytes(void *context, void *data, int size) { g_byte_array_append(context, data, (guint)size); }

magpie_status magpie_bmp_save(VipsImage *rgba, void **buffer, size_t *size, char *error, size_t error_length) {
    int width = vips_image_get_width(rgba), height = vips_image_get_height(rgba);
    // stb_image_write counts the file's bytes in an int.
    if ((size_t)width * (size_t)height * 4 > INT_MAX - 1024) return icon_failure(error, error_length, "the image is too large for a BMP");
    size_t length = 0;
    unsigned char *pixels = vips_image_write_to_memory(rgba, &length);
    if (!pixels) {
        magpie_take_error(error, error_length, "could not render the pixels");
        return MAGPIE_STATUS_FAILED;
    }
    size_t count = (size_t)width * height;
    int opaque = magpie_is_opaque(pixels, count);
    if (opaque) {
        // Alpha dropped in place: each pixel moves to an offset no later than its own.
        for (size_t index = 0; index < count; index++) memmove(pixels + index * 3, pixels + index * 4, 3);
    }
    GByteArray *output = g_byte_array_new();
    int written = stbi_write_bmp_to_func(append_bytes, output, width, height, opaque ? 3 : 4, pixels);
    g_free(pixels);
    if (!written) {
        g_byte_array_unref(output);
        return icon_failure(error, error_length, "stb_image_write could not write the BMP");
    }
    *size = output->len;
    *buffer = g_byte_array_free(output, FALSE);
    return MAGPIE_STATUS_OK;
}

magpie_status magpie_ico_save(VipsImage *rgba, void **buffer, size_t *size, char *error, size_t error_length) {
    int width = vips_image_get_width(rgba), height = vips_image_get_height(rgba);
    int longest = MAX(width, height);
    VipsImage *fitted = NULL;
    if (longest > icon_side_limit) {
        // Scaled premultiplied, so transparent pixels lend no colour to their neighbours.
        VipsImage *premultiplied = NULL, *scaled = NULL, *straight = NULL;
        int failed = vips_premultiply(rgba, &premultiplied, NULL) ||
                     vips_resize(premultiplied, &scaled, (double)icon_side_limit / longest, NULL) ||
                     vips_unpremultiply(scaled, &straight, NULL) || vips_cast_uchar(straight, &fitted, NULL);
        if (premultiplied) g_object_unref(premultiplied);
        if (scaled) g_object_unref(scaled);
        if (straight) g_object_unref(straight);
        if (failed) {
            magpie_take_error(error, error_length, "could not scale the image to an icon's size");
            return MAGPIE_STATUS_FAILED;
        }
    } else {
        fitted = rgba;
        g_object_ref(fitted);
    }
    width = MIN(vips_image_get_width(fitted), icon_side_limit);
    height = MIN(vips_image_get_height(fitted), icon_side_limit);
    void *png = NULL;
    size_t png_length = 0;
    VipsImage *cropped = NULL;
    int failed = vips_crop(fitted, &cropped, 0, 0, width, height, NULL) ||
                 vips_pngsave_buffer(cropped, &png, &png_length, "strip", TRUE, NULL);
    if (cropped) g_object_unref(cropped);
    g_object_unref(fitted);
    if (failed) {
        magpie_take_error(error, error_length, "could not write the icon's PNG");
        return MAGPIE_STATUS_FAILED;
    }
    // One directory entry; a side of 256 is written as 0.
    uint8_t *icon = g_malloc(22 + png_length);
    write16(icon, 0);
    write16(icon + 2, 1);
    write16(icon + 4, 1);
    icon[6] = (uint8_t)(width & 0xFF);
    icon[7] = (uint8_t)(height & 0xFF);
    icon[8] = 0;
    icon[9] = 0;
    write16(icon + 10, 1);
    write16(icon + 12, 32);
    write32(icon + 14, (uint32_t)png_length);
    write32(icon + 18, 22);
    memcpy(icon + 22, png, png_length);
    g_free(png);
    *buffer = icon;
    *size = 22 + png_length;
    return MAGPIE_STATUS_OK;
}
