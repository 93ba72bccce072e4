#include "bitmap.h"
#include "heif_hevc.h"
#include "jpeg_xl.h"
#include "magpie_encode.h"
#include "shim_internal.h"

#include <stdint.h>
#include <vips/vips.h>

// Whether red, green and blue are equal in each of the `count` pixels.
static int is_grey(const unsigned char *pixels, size_t count, int sixteen) {
    if (sixteen) {
        const uint16_t *samples = (const uint16_t *)pixels;
        for (size_t i = 0; i < count * 4; i += 4)
            if (samples[i] != samples[i + 1] || samples[i] != samples[i + 2]) return 0;
        return 1;
    }
    for (size_t i = 0; i < count * 4; i += 4)
        if (pixels[i] != pixels[i + 1] || pixels[i] != pixels[i + 2]) return 0;
    return 1;
}

// The bands a lossless format needs for what the pixels hold: one grey band for a grey image,
// no alpha for an opaque one (a grey source stays grey, as imgproxy keeps it, and an opaque
// PNG is not a quarter larger for an alpha band of 255s).
static int fewest_bands(VipsImage *image, int grey, int opaque, int sixteen, VipsImage **out) {
    if (!grey) return opaque ? vips_extract_band(image, out, 0, "n", 3, NULL) : vips_copy(image, out, NULL);
    VipsImage *level = NULL, *joined = NULL;
    int failed;
    if (opaque) {
        failed = vips_extract_band(image, &joined, 0, NULL);
    } else {
        VipsImage *alpha = NULL;
        failed = vips_extract_band(image, &level, 0, NULL) || vips_extract_band(image, &alpha, 3, NULL) ||
                 vips_bandjoin2(level, alpha, &joined, NULL);
        if (alpha) g_object_unref(alpha);
        if (level) g_object_unref(level);
    }
    if (!failed) failed = vips_copy(joined, out, "interpretation", sixteen ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_B_W, NULL);
    if (joined) g_object_unref(joined);
    return failed;
}

// Whether the options ask for an animation: more than one frame, in a format that has them.
static int is_animated(const magpie_encode_options *options) {
    return options->frames > 1 && (options->format == MAGPIE_FORMAT_WEBP || options->format == MAGPIE_FORMAT_GIF);
}

magpie_status magpie_encode(const unsigned char *pixels, int width, int height, const magpie_encode_options *options,
                  unsigned char **output, size_t *output_length, char *error, size_t error_length) {
    *output = NULL;
    *output_length = 0;
    int rows = is_animated(options) ? height * options->frames : height;
    int sixteen = options->sample_bytes == 2;
    if (sixteen && (is_animated(options) || (options->format != MAGPIE_FORMAT_PNG && options->format != MAGPIE_FORMAT_TIFF))) {
        magpie_set_error(error, error_length, "only PNG and TIFF stills are written with 16 bits a sample");
        return MAGPIE_STATUS_FAILED;
    }
    VipsImage *image = sixteen ? magpie_wrap_rgba16(pixels, width, rows) : magpie_wrap_rgba(pixels, width, rows);
    if (!image) {
        magpie_take_error(error, error_length, "could not wrap the pixels");
        return MAGPIE_STATUS_FAILED;
    }
    magpie_status status = magpie_encode_image(image, pixels, width, height, options, output, output_length, error, error_length);
    g_object_unref(image);
    return status;
}

magpie_status magpie_encode_image(VipsImage *image, const unsigned char *pixels, int width, int height,
                                  const magpie_encode_options *options, unsigned char **output, size_t *output_length,
                                  char *error, size_t error_length) {
    // The first frame's pixels decide: the stills' formats write only it.
    size_t count = (size_t)width * (size_t)height;
    int opaque = magpie_is_opaque_samples(pixels, count, options->sample_bytes);
    int grey = !is_animated(options) && is_grey(pixels, count, options->sample_bytes == 2);
    return magpie_encode_decided(image, pixels, width, height, opaque, grey, options, output, output_length, error, error_length);
}

// PNG or TIFF, in the fewest bands that hold the image. TIFF: Deflate, lossless and read by
// every TIFF reader; quality applies to none of it.
static int save_lossless(VipsImage *image, int grey, int opaque, int sixteen, const magpie_encode_options *options, int strip,
                         void **buffer, size_t *size) {
    VipsImage *banded = NULL;
    if (fewest_bands(image, grey, opaque, sixteen, &banded)) return -1;
    int failed = options->format == MAGPIE_FORMAT_PNG
                     ? vips_pngsave_buffer(banded, buffer, size, "strip", strip, "bitdepth", sixteen ? 16 : 8, NULL)
                     : vips_tiffsave_buffer(banded, buffer, size, "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE, "strip", strip, NULL);
    g_object_unref(banded);
    return failed;
}

static int save_jpeg(VipsImage *image, int grey, int opaque, const magpie_encode_options *options, int strip, void **buffer,
                     size_t *size) {
    VipsImage *flat = NULL, *written_bands = NULL;
    int failed;
    if (opaque) {
        // Nothing to flatten: the colour bands as they are, without flatten's float pass.
        failed = vips_extract_band(image, &flat, 0, "n", 3, NULL);
    } else {
        VipsArrayDouble *background = vips_array_double_new(options->background, 3);
        failed = vips_flatten(image, &flat, "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
    }
    // Grey stays grey (one component) where what shows through is grey too.
    int grey_background = options->background[0] == options->background[1] && options->background[0] == options->background[2];
    if (!failed && grey && (opaque || grey_background)) {
        VipsImage *level = NULL;
        failed = vips_extract_band(flat, &level, 0, NULL) || vips_copy(level, &written_bands, "interpretation", VIPS_INTERPRETATION_B_W, NULL);
        if (level) g_object_unref(level);
    } else if (!failed) {
        written_bands = flat;
        g_object_ref(written_bands);
    }
    if (!failed)
        failed = vips_jpegsave_buffer(written_bands, buffer, size, "Q", options->quality, "interlace", options->progressive, "strip", strip, NULL);
    if (written_bands) g_object_unref(written_bands);
    if (flat) g_object_unref(flat);
    return failed;
}

// An animation at effort 2 of 0-6 (libwebp's method): for every frame, libwebp's animation
// encoder tries a sub-frame and a full frame, and from method 3 up each with its rate-distortion
// search. At 2, files 3-5% larger than at libvips' default 4 and still no larger than Pillow's
// (whose animated save uses method 0); the 100-frame benchmark went from 0.92 to 0.72-0.77 of
// Pillow's time (issue 38, BENCHMARKS.md). Stills keep 4: one frame costs little either way.
static int save_webp(VipsImage *image, int animated, const magpie_encode_options *options, int strip, void **buffer, size_t *size) {
    if (options->lossless) return vips_webpsave_buffer(image, buffer, size, "lossless", TRUE, "strip", strip, NULL);
    return vips_webpsave_buffer(image, buffer, size, "Q", options->quality, "strip", strip, "effort", animated ? 2 : 4, NULL);
}

// An opaque image is written without its alpha plane, which would only add bytes. Effort 2 of
// 0-9: the default, 4, takes about twice as long for files a few per cent smaller, too slow for
// images made per request.
static int save_avif(VipsImage *image, int opaque, const magpie_encode_options *options, int strip, void **buffer, size_t *size) {
    VipsImage *colour = NULL;
    if (opaque ? vips_extract_band(image, &colour, 0, "n", 3, NULL) : vips_copy(image, &colour, NULL)) return -1;
    int failed = vips_heifsave_buffer(colour, buffer, size, "Q", options->quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                                      "effort", 2, "strip", strip, NULL);
    g_object_unref(colour);
    return failed;
}

magpie_status magpie_encode_decided(VipsImage *image, const unsigned char *pixels, int width, int height, int opaque, int grey,
                                    const magpie_encode_options *options, unsigned char **output, size_t *output_length,
                                    char *error, size_t error_length) {
    const int quality = options->quality;
    *output = NULL;
    *output_length = 0;
    int animated = is_animated(options);
    int sixteen = options->sample_bytes == 2;
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
    case MAGPIE_FORMAT_TIFF: failed = save_lossless(image, grey, opaque, sixteen, options, strip, &buffer, &size); break;
    case MAGPIE_FORMAT_JPEG: failed = save_jpeg(image, grey, opaque, options, strip, &buffer, &size); break;
    case MAGPIE_FORMAT_WEBP: failed = save_webp(image, animated, options, strip, &buffer, &size); break;
    case MAGPIE_FORMAT_GIF:
        failed = options->gif_effort > 0 ? vips_gifsave_buffer(image, &buffer, &size, "effort", options->gif_effort, NULL)
                                         : vips_gifsave_buffer(image, &buffer, &size, NULL);
        break;
    case MAGPIE_FORMAT_AVIF: failed = save_avif(image, opaque, options, strip, &buffer, &size); break;
    case MAGPIE_FORMAT_HEIF:
    case MAGPIE_FORMAT_JXL: {
        int keep_alpha = !opaque;
        written = options->format == MAGPIE_FORMAT_HEIF
                      ? magpie_heif_hevc_save(pixels, width, height, quality, keep_alpha, &buffer, &size, error, error_length)
                      : magpie_jxl_save(pixels, width, height, quality, keep_alpha, &buffer, &size, error, error_length);
        break;
    }
    case MAGPIE_FORMAT_BMP: written = magpie_bmp_save(image, &buffer, &size, error, error_length); break;
    case MAGPIE_FORMAT_ICO: written = magpie_ico_save(image, &buffer, &size, error, error_length); break;
    default:
        magpie_set_error(error, error_length, "unknown output format");
        return MAGPIE_STATUS_UNSUPPORTED;
    }
    if (written != MAGPIE_STATUS_OK) return written;
    if (failed) {
        magpie_take_error(error, error_length, "encoding failed");
        return MAGPIE_STATUS_FAILED;
    }
    *output = buffer;
    *output_length = size;
    return MAGPIE_STATUS_OK;
}
