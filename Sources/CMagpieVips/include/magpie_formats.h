// The image formats Magpie reads, and reading an image's header.
#ifndef MAGPIE_FORMATS_H
#define MAGPIE_FORMATS_H

#include <stddef.h>

#include "magpie_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MAGPIE_FORMAT_UNKNOWN = 0,
    MAGPIE_FORMAT_JPEG = 1,
    MAGPIE_FORMAT_PNG = 2,
    MAGPIE_FORMAT_GIF = 3,
    MAGPIE_FORMAT_WEBP = 4,
    /// HEVC-coded HEIF (HEIC).
    MAGPIE_FORMAT_HEIF = 5,
    /// AV1-coded HEIF.
    MAGPIE_FORMAT_AVIF = 6,
    /// TIFF: its first page.
    MAGPIE_FORMAT_TIFF = 7,
    /// Windows bitmap.
    MAGPIE_FORMAT_BMP = 8,
    /// Windows icon: its largest entry.
    MAGPIE_FORMAT_ICO = 9,
    /// JPEG XL: its first frame.
    MAGPIE_FORMAT_JXL = 10,
    /// SVG, rendered by libvips' librsvg.
    MAGPIE_FORMAT_SVG = 11,
} magpie_format;

typedef struct {
    /// Dimensions as declared by the file, before orientation is applied.
    int width;
    int height;
    /// Frames (pages) the loader reports: GIF and WebP animations have more than one.
    int pages;
    /// The file is an animation libvips 8.14 can only show the first frame of (APNG, an
    /// AVIF/HEIF image sequence).
    int unplayable_animation;
    /// EXIF orientation 1...8 (1 when absent).
    int orientation;
    /// More than 8 bits a sample (a 16-bit PNG or TIFF).
    int deep;
    magpie_format format;
    /// The EXIF Copyright as libvips reads it ("text (text, ASCII, n components, n bytes)"),
    /// empty when there is none; cut at 255 bytes.
    char copyright[256];
} magpie_header;

/// 1 when a JPEG announces a gain map, as an Ultra HDR JPEG does: a second image in MPF and
/// gain map metadata (Ultra HDR's `hdrgm` XMP or ISO 21496-1) in the primary's header. Reads
/// the header only; 0 for anything else, damaged files included.
int magpie_jpeg_has_gain_map(const void *data, size_t length);

/// The image's size once upright (EXIF orientation applied; libheif has turned a HEIF already).
void magpie_upright_size(const magpie_header *source, int *width, int *height);

/// Reads the header only. Fails with MAGPIE_STATUS_NOT_AN_IMAGE or MAGPIE_STATUS_UNSUPPORTED
/// when no allowed loader recognises the bytes.
magpie_status magpie_read_header(const void *data, size_t length, double vector_dpi, magpie_header *header, char *error,
                                 size_t error_length);

#ifdef __cplusplus
}
#endif

#endif
