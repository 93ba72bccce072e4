// A narrow, non-variadic C surface over libvips for Swift.
//
// Swift cannot call libvips' variadic functions, and the public Swift API must not
// expose GLib or libvips types, so everything here is plain C: buffers in, RGBA8 out.
#ifndef MAGPIE_VIPS_H
#define MAGPIE_VIPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Result codes shared with Swift (`VipsDecoder`).
enum {
    MAGPIE_VIPS_OK = 0,
    MAGPIE_VIPS_NOT_AN_IMAGE = 1,
    MAGPIE_VIPS_UNSUPPORTED = 2,
    MAGPIE_VIPS_TOO_MANY_PIXELS = 3,
    MAGPIE_VIPS_FAILED = 4,
};

/// Log levels passed to the log callback.
enum {
    MAGPIE_VIPS_LOG_DEBUG = 0,
    MAGPIE_VIPS_LOG_INFO = 1,
    MAGPIE_VIPS_LOG_WARNING = 2,
    MAGPIE_VIPS_LOG_ERROR = 3,
};

typedef void (*magpie_vips_log_fn)(int level, const char *message);

typedef struct {
    /// Dimensions as declared by the file, before orientation is applied.
    int width;
    int height;
    int pages;
    /// EXIF orientation 1...8 (1 when absent).
    int orientation;
    /// libvips loader class, e.g. "VipsForeignLoadJpegBuffer".
    char loader[48];
} magpie_vips_header;

typedef struct {
    /// The libvips pipeline that produces the pixels when rendered (a VipsImage).
    void *handle;
    int width;
    int height;
    magpie_vips_header source;
} magpie_vips_image;

/// Starts libvips once per process: operation cache off, untrusted loaders blocked,
/// GLib warnings from libvips sent to `log`. Returns 0 on success.
int magpie_vips_initialize(magpie_vips_log_fn log, char *error, size_t error_length);

/// Reads the header only. Fails with MAGPIE_VIPS_NOT_AN_IMAGE or MAGPIE_VIPS_UNSUPPORTED
/// when no allowed loader recognises the bytes.
int magpie_vips_read_header(const void *data, size_t length, magpie_vips_header *header,
                            char *error, size_t error_length);

/// Prepares decoding to upright RGBA8; `magpie_vips_render` produces the pixels. Images declaring more than `max_pixels` are refused before any
/// pixel is decoded. With `target_width`/`target_height` above 0 the image is downsampled at
/// load time (shrink-on-load) to fit inside, or with `fill` to cover and be centre-cropped to,
/// that box; it is never enlarged.
/// With `partial` set the data may be a truncated prefix of a JPEG: whatever decodes is
/// returned (for progressive previews) instead of failing.
int magpie_vips_decode(const void *data, size_t length, uint64_t max_pixels,
                       int target_width, int target_height, int fill, int partial,
                       magpie_vips_image *image, char *error, size_t error_length);

/// Decodes the prepared image into `destination`, which must hold width * height * 4 bytes:
/// RGBA, 8 bits per channel, straight (not premultiplied) alpha, rows packed. Writing into
/// the caller's memory means the bitmap exists once, not once in libvips and once in a copy.
int magpie_vips_render(magpie_vips_image *image, unsigned char *destination, size_t length,
                       char *error, size_t error_length);

/// Releases what `magpie_vips_decode` prepared.
void magpie_vips_free_image(magpie_vips_image *image);

/// Encodes RGBA8 pixels to "png", "jpeg", "jpeg-progressive", "webp" or "gif". `quality` applies to lossy formats.
int magpie_vips_encode(const unsigned char *pixels, int width, int height, const char *format,
                       int quality, unsigned char **output, size_t *output_length,
                       char *error, size_t error_length);

/// Frees a buffer returned by `magpie_vips_encode` or `magpie_vips_render_text`.
void magpie_vips_free_buffer(void *buffer);

/// Renders `text` (Pango markup allowed) as an 8-bit coverage mask, `height_pixels` tall at
/// most, with the system's sans-serif font. The mask is `*width` by `*height` bytes.
int magpie_vips_render_text(const char *text, int height_pixels, unsigned char **mask,
                            int *width, int *height, char *error, size_t error_length);

#ifdef __cplusplus
}
#endif

#endif
