#include "bitmap.h"
#include "heif_hevc.h"
#include "jpeg_xl.h"
#include "magpie_encode.h"
#include "shim_internal.h"

#include <vips/vips.h>

magpie_status magpie_encode(const unsigned char *pixels, int width, int height, const magpie_encode_options *options,
                  unsigned char **output, size_t *output_length, char *error, size_t error_length) {
    const int quality = options->quality;
    *output = NULL;
    *output_length = 0;
    int animated = options->frames > 1 && (options->format == MAGPIE_FORMAT_WEBP || options->format == MAGPIE_FORMAT_GIF);
    int rows = animated ? height * options->frames : height;
    int sixteen = options->sample_bytes == 2;
    if (sixteen && (animated || (options->format != MAGPIE_FORMAT_PNG && options->format != MAGPIE_FORMAT_TIFF))) {
        magpie_set_error(error, error_length, "only PNG and TIFF stills are written with 16 bits a sample");
        return MAGPIE_STATUS_FAILED;
    }
    VipsImage *image = sixteen ? magpie_wrap_rgba16(pixels, width, rows) : magpie_wrap_rgba(pixels, width, rows);
    if (!image) {
        magpie_take_error(error, error_length, "could not wrap the pixels");
        return MAGPIE_STATUS_FAILED;
    }
    if (animated) {
        // libvips' WebP and GIF savers write a tall image with these as an animation.
        vips_image_set_int(image, "page-height", height);
        vips_image_set_int(image, "loop", options->loop);
        if (options->delays) vips_image_set_array_int(image, "delay", options->delays, options->frames);
    }
    void *buffer = NULL;
    size_t size = 0;
    int failed = 0;
    // Set by the encoders outside libvips, which leave their own error.
    magpie_status written = MAGPIE_STATUS_OK;
    // "strip": the pixels came from memory, so the only metadata libvips would write is its
    // own default EXIF block, bytes no viewer needs, or, when kept, the copyright set here.
    int strip = !(options->copyright && options->copyright[0]);
    if (!strip) vips_image_set_string(image, "exif-ifd0-Copyright", options->copyright);
    switch (options->format) {
    case MAGPIE_FORMAT_PNG:
        failed = vips_pngsave_buffer(image, &buffer, &size, "strip", strip, "bitdepth", sixteen ? 16 : 8, NULL);
        break;
    case MAGPIE_FORMAT_JPEG: {
        VipsImage *flat = NULL;
        if (magpie_is_opaque(pixels, (size_t)width * (size_t)height)) {
            // Nothing to flatten: the colour bands as they are, without flatten's float pass.
            failed = vips_extract_band(image, &flat, 0, "n", 3, NULL);
        } else {
            VipsArrayDouble *background = vips_array_double_new(options->background, 3);
            failed = vips_flatten(image, &flat, "background", background, NULL);
            vips_area_unref(VIPS_AREA(background));
        }
        if (!failed) {
            failed = vips_jpegsave_buffer(flat, &buffer, &size, "Q", quality, "interlace", options->progressive, "strip", strip, NULL);
            g_object_unref(flat);
        }
        break;
    }
    case MAGPIE_FORMAT_WEBP:
        failed = options->lossless ? vips_webpsave_buffer(image, &buffer, &size, "lossless", TRUE, "strip", strip, NULL)
                                   : vips_webpsave_buffer(image, &buffer, &size, "Q", quality, "strip", strip, NULL);
        break;
    case MAGPIE_FORMAT_GIF: failed = vips_gifsave_buffer(image, &buffer, &size, NULL); break;
    case MAGPIE_FORMAT_TIFF:
        // Deflate: lossless and read by every TIFF reader; quality applies to none of it.
        failed = vips_tiffsave_buffer(image, &buffer, &size, "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE, "strip", strip, NULL);
        break;
    case MAGPIE_FORMAT_AVIF: {
        // An opaque image is written without its alpha plane, which would
        // only add bytes. Effort 2 of 0-9: the default, 4, takes about twice as long for files
        // a few per cent smaller, too slow for images made per request.
        VipsImage *colour = NULL;
        failed = magpie_is_opaque(pixels, (size_t)width * (size_t)height) ? vips_extract_band(image, &colour, 0, "n", 3, NULL)
                                                                          : vips_copy(image, &colour, NULL);
        if (!failed) {
            failed = vips_heifsave_buffer(colour, &buffer, &size, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                                          "effort", 2, "strip", strip, NULL);
            g_object_unref(colour);
        }
        break;
    }
    case MAGPIE_FORMAT_HEIF:
    case MAGPIE_FORMAT_JXL: {
        int keep_alpha = !magpie_is_opaque(pixels, (size_t)width * (size_t)height);
        written = options->format == MAGPIE_FORMAT_HEIF
                      ? magpie_heif_hevc_save(pixels, width, height, quality, keep_alpha, &buffer, &size, error, error_length)
                      : magpie_jxl_save(pixels, width, height, quality, keep_alpha, &buffer, &size, error, error_length);
        break;
    }
    case MAGPIE_FORMAT_BMP: written = magpie_bmp_save(image, &buffer, &size, error, error_length); break;
    case MAGPIE_FORMAT_ICO: written = magpie_ico_save(image, &buffer, &size, error, error_length); break;
    default:
        g_object_unref(image);
        magpie_set_error(error, error_length, "unknown output format");
        return MAGPIE_STATUS_UNSUPPORTED;
    }
    g_object_unref(image);
    if (written != MAGPIE_STATUS_OK) return written;
    if (failed) {
        magpie_take_error(error, error_length, "encoding failed");
        return MAGPIE_STATUS_FAILED;
    }
    *output = buffer;
    *output_length = size;
    return MAGPIE_STATUS_OK;
}

