#include "magpie_decode.h"
#include "magpie_process.h"
#include "heif_hevc.h"
#include "jpeg_dc.h"
#include "png_guard.h"
#include "shim_internal.h"
#include "webp_frames.h"

#include <string.h>
#include <vips/vips.h>

// A GIF whose logical screen is empty has nothing to show; libnsgif invents a size from the
// first frame's descriptor instead of refusing it.
static int validate_gif(const unsigned char *data, size_t length, char *error, size_t error_length) {
    if (length < 10) {
        magpie_set_error(error, error_length, "damaged GIF: the header is truncated");
        return MAGPIE_STATUS_FAILED;
    }
    int width = data[6] | (data[7] << 8);
    int height = data[8] | (data[9] << 8);
    if (width == 0 || height == 0) {
        magpie_set_error(error, error_length, "damaged GIF: the logical screen is empty");
        return MAGPIE_STATUS_FAILED;
    }
    return MAGPIE_STATUS_OK;
}

// libvips' thumbnail decodes a JPEG at a scale that leaves a factor of two for its own
// resampler (a 4000 px photo for a 256 px box is decoded at 1000 px). libjpeg's scaled
// decode already averages whole 8x8 blocks, so nothing aliases when it goes further; the
// largest scale that still covers the box (500 px here) took a 12 MP photo from 33 to 29 ms
// and its peak memory from 4.0 to 2.9 MB. The box applies to the upright image, so a
// rotated file swaps it.
static int jpeg_shrink_for_box(const magpie_header *source, int target_width, int target_height, int fill) {
    int width, height;
    magpie_upright_size(source, &width, &height);
    double horizontal = target_width > 0 ? (double)width / target_width : 0;
    double vertical = target_height > 0 ? (double)height / target_height : 0;
    double shrink;
    if (horizontal > 0 && vertical > 0) shrink = fill ? MIN(horizontal, vertical) : MAX(horizontal, vertical);
    else shrink = MAX(horizontal, vertical);
    return magpie_shrink_factor(source, shrink);
}

// The animation limits, checked against the header before any frame is decoded.
static magpie_status check_animation(const magpie_header *source, const magpie_decode_options *options,
                                     char *error, size_t error_length) {
    uint64_t total = (uint64_t)source->width * (uint64_t)source->height * (uint64_t)source->pages;
    char text[200];
    if (options->max_frames > 0 && source->pages > options->max_frames) {
        g_snprintf(text, sizeof text, "the animation has %d frames, more than the limit of %d", source->pages,
                   options->max_frames);
    } else if (options->max_animation_pixels > 0 && total > options->max_animation_pixels) {
        g_snprintf(text, sizeof text, "the animation's %d frames of %dx%d make %llu pixels, more than the limit of %llu",
                   source->pages, source->width, source->height, (unsigned long long)total,
                   (unsigned long long)options->max_animation_pixels);
    } else {
        return MAGPIE_STATUS_OK;
    }
    magpie_set_error(error, error_length, text);
    return MAGPIE_STATUS_ANIMATION_TOO_LARGE;
}

// Copies the per-frame delays libvips read (milliseconds) into memory the image owns. A file
// without them gets libvips' older single `gif-delay` (centiseconds) for every frame.
static int *copy_delays(VipsImage *loaded, int frames) {
    int *delays = g_new0(int, frames);
    int *stated = NULL, count = 0;
    int fallback = 0;
    if (vips_image_get_typeof(loaded, "delay") && !vips_image_get_array_int(loaded, "delay", &stated, &count)) {
        for (int i = 0; i < frames && i < count; i++) delays[i] = stated[i];
    } else if (vips_image_get_typeof(loaded, "gif-delay") && !vips_image_get_int(loaded, "gif-delay", &fallback)) {
        for (int i = 0; i < frames; i++) delays[i] = fallback * 10;
    }
    return delays;
}

// Every frame of a GIF or animated WebP. libvips loads them as one tall image, frames stacked
// top to bottom; thumbnails shrink each frame on its own, so no kernel reaches across a frame
// boundary and every frame gets the same geometry.
// A GIF cut short keeps the frames that arrived whole, as browsers show them.
static magpie_status decode_animation(const void *data, size_t length, const magpie_decode_options *options,
                                      int frames_to_load, VipsFailOn fail_on, magpie_image *image, char *error,
                                      size_t error_length) {
    VipsImage *loaded = NULL;
    int failed = image->source.format == MAGPIE_FORMAT_GIF
        ? vips_gifload_buffer((void *)data, length, &loaded, "n", frames_to_load, "fail_on", fail_on, NULL)
        : vips_webpload_buffer((void *)data, length, &loaded, "n", -1, "fail_on", fail_on, NULL);
    if (failed) {
        magpie_take_error(error, error_length, "decoding failed");
        return MAGPIE_STATUS_FAILED;
    }
    int page_height = vips_image_get_page_height(loaded);
    int frames = loaded->Ysize / page_height;
    VipsImage *rgba = NULL;
    magpie_status status = magpie_to_rgba8(loaded, &rgba, error, error_length);
    image->delays = copy_delays(loaded, frames);
    image->loop = 0;
    if (vips_image_get_typeof(loaded, "loop")) vips_image_get_int(loaded, "loop", &image->loop);
    g_object_unref(loaded);
    if (status != MAGPIE_STATUS_OK) return status;
    int thumbnail = options->target_width > 0 || options->target_height > 0;
    magpie_resize_box box = {.gravity = MAGPIE_GRAVITY_CENTRE, .fit = options->fit};
    box.width = options->target_width > 0 ? options->target_width : VIPS_MAX_COORD;
    box.height = options->target_height > 0 ? options->target_height : VIPS_MAX_COORD;
    magpie_operation resize = magpie_resize_operation(&box);
    magpie_webp_frames *webp = image->source.format == MAGPIE_FORMAT_WEBP
        ? magpie_webp_frames_open(data, length, vips_image_get_width(rgba), page_height, frames)
        : NULL;
    // Rendered frame after frame in order, which is also the order the GIF and WebP decoders work in.
    status = magpie_plan_frames(rgba, NULL, webp, frames, -1, thumbnail ? &resize : NULL, image, error, error_length);
    g_object_unref(rgba);
    return status;
}

// Cover: the box the image fits inside at the scale where it covers the requested box, so
// nothing is cropped yet and a crop with any gravity can follow.
static void cover_box(const magpie_header *source, int *width, int *height) {
    int upright_width, upright_height;
    magpie_upright_size(source, &upright_width, &upright_height);
    double source_width = upright_width, source_height = upright_height;
    if (*width <= 0 || *height <= 0 || source_width <= 0 || source_height <= 0) return;
    if (*width / source_width > *height / source_height) *height = VIPS_MAX_COORD;
    else *width = VIPS_MAX_COORD;
}

// Exact: each side of the box no larger than the image's (a thumbnail never enlarges), and a
// side not given is the image's own.
static void exact_box(const magpie_header *source, int *width, int *height) {
    int upright_width, upright_height;
    magpie_upright_size(source, &upright_width, &upright_height);
    *width = *width > 0 && *width < upright_width ? *width : upright_width;
    *height = *height > 0 && *height < upright_height ? *height : upright_height;
}

// The source's declared size within the limit, and the bytes fit to be opened: a preview is
// made from a JPEG only, a PNG's chunks and a GIF's blocks are checked first.
static magpie_status check_source(const void *data, size_t length, const magpie_decode_options *options, const magpie_image *image,
                                  char *error, size_t error_length) {
    uint64_t declared = (uint64_t)image->source.width * (uint64_t)image->source.height;
    if (options->max_pixels > 0 && declared > options->max_pixels) {
        char text[160];
        g_snprintf(text, sizeof text, "the image declares %dx%d pixels, more than the limit of %llu", image->source.width,
                   image->source.height, (unsigned long long)options->max_pixels);
        magpie_set_error(error, error_length, text);
        return MAGPIE_STATUS_TOO_MANY_PIXELS;
    }
    const magpie_format format = image->source.format;
    if (options->partial && format != MAGPIE_FORMAT_JPEG) {
        magpie_set_error(error, error_length, "previews are made from JPEG only");
        return MAGPIE_STATUS_UNSUPPORTED;
    }
    if (format == MAGPIE_FORMAT_PNG && magpie_png_check_data(data, length, error, error_length) != MAGPIE_STATUS_OK)
        return MAGPIE_STATUS_FAILED;
    if (format == MAGPIE_FORMAT_GIF) return validate_gif(data, length, error, error_length);
    return MAGPIE_STATUS_OK;
}

// Whether the source is decoded as an animation, and how many of its frames (-1: all): an
// animation too large for the limits is refused, or decoded as its first frame where the
// options allow; a GIF cut short keeps its whole frames.
static magpie_status animation_frames(const void *data, size_t length, const magpie_decode_options *options, const magpie_image *image,
                                      int *animated, int *frames_to_load, char *error, size_t error_length) {
    magpie_format format = image->source.format;
    *frames_to_load = -1;
    *animated = options->all_frames && !options->partial && image->source.pages > 1 &&
                (format == MAGPIE_FORMAT_GIF || format == MAGPIE_FORMAT_WEBP);
    if (!*animated) return MAGPIE_STATUS_OK;
    magpie_status status = check_animation(&image->source, options, error, error_length);
    if (status != MAGPIE_STATUS_OK) {
        if (!options->first_frame_when_too_large) return status;
        *animated = 0;
        if (error && error_length) error[0] = '\0';
        return MAGPIE_STATUS_OK;
    }
    if (format == MAGPIE_FORMAT_GIF) {
        int whole = magpie_gif_complete_frames(data, length);
        // One whole frame is a still; none (the first frame cut off) is decoded like any
        // truncated image.
        if (whole < image->source.pages && whole < 2) *animated = 0;
        else if (whole < image->source.pages) *frames_to_load = whole;
    }
    return MAGPIE_STATUS_OK;
}

// A thumbnail of the still: opened by Magpie's own loaders where libvips' thumbnail cannot
// choose (a JPEG at a reduced scale, HEIF sequences, HEVC, a dense SVG, formats decoded outside
// libvips) and thumbnailed, or thumbnailed by libvips from the bytes.
static magpie_status open_thumbnail(const void *data, size_t length, const magpie_decode_options *options, const magpie_image *image,
                                    VipsAccess access, VipsFailOn fail_on, VipsImage **decoded, char *error, size_t error_length) {
    const magpie_format format = image->source.format;
    const int is_jpeg = format == MAGPIE_FORMAT_JPEG, fill = options->fit == MAGPIE_FIT_FILL, exact = options->fit == MAGPIE_FIT_EXACT;
    const int width = options->target_width > 0 ? options->target_width : VIPS_MAX_COORD;
    const int height = options->target_height > 0 ? options->target_height : VIPS_MAX_COORD;
    // A thumbnail that may enlarge neither side: exact_box has made the box no larger.
    const VipsSize size = exact ? VIPS_SIZE_FORCE : VIPS_SIZE_DOWN;
    const VipsInteresting crop = fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE;
    // An SVG with a density of its own is drawn by magpie_open_image (vips_thumbnail_buffer
    // would set the loader's scale over it) and then shrunk.
    const int dense_svg = format == MAGPIE_FORMAT_SVG && options->vector_dpi > 0;
    const int heif_sequence = magpie_is_heif(format) && magpie_is_heif_sequence(data, length);
    int failed;
    if (is_jpeg || heif_sequence || format == MAGPIE_FORMAT_HEIF || dense_svg || magpie_is_decoded_outside_libvips(format)) {
        // HEIF sequences: vips_thumbnail_buffer would pick the (blocked) ImageMagick loader;
        // HEVC: libvips may have no decoder for it (heif_hevc.c); BMP, ICO, JPEG XL: it has none.
        VipsImage *loaded = NULL;
        int shrink = is_jpeg ? jpeg_shrink_for_box(&image->source, options->target_width, options->target_height, fill || exact) : 1;
        // At 1/8 a progressive JPEG needs only its DC scans; `loaded` stays NULL otherwise.
        if (shrink == 8 && !options->partial) magpie_jpeg_dc_open(data, length, image->source.orientation, &loaded);
        if (!loaded)
            loaded = is_jpeg ? magpie_open_shrunk_jpeg(data, length, shrink, access, fail_on)
                             : magpie_open_image(data, length, format, access, fail_on, options->vector_dpi);
        if (!loaded) {
            magpie_take_error(error, error_length, "decoding failed");
            return MAGPIE_STATUS_FAILED;
        }
        failed = vips_thumbnail_image(loaded, decoded, width, "height", height, "size", size, "crop", crop, NULL);
        g_object_unref(loaded);
    } else {
        failed = vips_thumbnail_buffer((void *)data, length, decoded, width, "height", height, "size", size, "crop", crop, "fail_on",
                                       fail_on, NULL);
    }
    if (!failed) return MAGPIE_STATUS_OK;
    magpie_take_error(error, error_length, "decoding failed");
    return MAGPIE_STATUS_FAILED;
}

// The whole still, upright: at a reduced scale where the resize that follows allows one
// (`full_width` and `full_height` then say the whole size).
static magpie_status open_whole(const void *data, size_t length, const magpie_decode_options *options, magpie_image *image,
                                VipsAccess access, VipsFailOn fail_on, VipsImage **decoded, char *error, size_t error_length) {
    const magpie_format format = image->source.format;
    VipsImage *loaded = NULL;
    if (!options->partial && !(magpie_is_heif(format) && magpie_is_heif_sequence(data, length)))
        loaded = magpie_open_for_resize(data, length, &image->source, options, access, fail_on, &image->full_width, &image->full_height);
    if (!loaded) loaded = magpie_open_image(data, length, format, access, fail_on, options->vector_dpi);
    if (!loaded) {
        magpie_take_error(error, error_length, "decoding failed");
        return MAGPIE_STATUS_FAILED;
    }
    // Upright already: autorot would only copy it (two operations' set-up, a tenth of a small
    // decode's time).
    if (vips_image_get_orientation(loaded) == 1) {
        *decoded = loaded;
        return MAGPIE_STATUS_OK;
    }
    int rotated = vips_autorot(loaded, decoded, NULL);
    g_object_unref(loaded);
    if (!rotated) return MAGPIE_STATUS_OK;
    magpie_take_error(error, error_length, "applying the EXIF orientation failed");
    return MAGPIE_STATUS_FAILED;
}

// The decoded still as the bitmap's pipeline: RGBA of 8 bits a sample, or 16 where kept.
static magpie_status finish_still(VipsImage *decoded, const magpie_decode_options *options, magpie_image *image, char *error,
                                  size_t error_length) {
    VipsImage *rgba = NULL;
    int sample_bytes = 1;
    image->added_alpha = !vips_image_hasalpha(decoded);
    image->grey_source = vips_image_get_bands(decoded) <= 2;
    magpie_status converted = options->keep_high_depth ? magpie_to_rgba_keeping_depth(decoded, &rgba, &sample_bytes, error, error_length)
                                                       : magpie_to_rgba8(decoded, &rgba, error, error_length);
    image->sample_bytes = sample_bytes;
    if (converted != MAGPIE_STATUS_OK) return converted;
    // Nothing is decoded yet: libvips runs the pipeline when magpie_render asks for pixels.
    image->handle = rgba;
    image->width = vips_image_get_width(rgba);
    image->height = vips_image_get_height(rgba);
    return MAGPIE_STATUS_OK;
}

magpie_status magpie_decode(const void *data, size_t length, const magpie_decode_options *options,
                  magpie_image *image, char *error, size_t error_length) {
    memset(image, 0, sizeof *image);
    magpie_status status = magpie_read_header(data, length, options->vector_dpi, &image->source, error, error_length);
    if (status != MAGPIE_STATUS_OK) return status;
    magpie_decode_options adjusted = *options;
    int thumbnail = adjusted.target_width > 0 || adjusted.target_height > 0;
    if (thumbnail && adjusted.fit == MAGPIE_FIT_COVER) {
        cover_box(&image->source, &adjusted.target_width, &adjusted.target_height);
        adjusted.fit = MAGPIE_FIT_FIT;
    }
    if (thumbnail && adjusted.fit == MAGPIE_FIT_EXACT) exact_box(&image->source, &adjusted.target_width, &adjusted.target_height);
    options = &adjusted;
    const magpie_format format = image->source.format;
    if (format == MAGPIE_FORMAT_GIF) {
        size_t patched_length = 0;
        unsigned char *patched = magpie_gif_with_default_palette(data, length, &patched_length);
        if (patched) {
            image->owned_data = patched;
            data = patched;
            length = patched_length;
        }
    }
    if ((status = check_source(data, length, options, image, error, error_length)) != MAGPIE_STATUS_OK) return status;
    // libnsgif reports corrupt frame data only as a warning.
    VipsFailOn fail_on = options->partial ? VIPS_FAIL_ON_NONE : format == MAGPIE_FORMAT_GIF ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_ERROR;
    image->frames = 1;
    int animated, frames_to_load;
    status = animation_frames(data, length, options, image, &animated, &frames_to_load, error, error_length);
    if (status != MAGPIE_STATUS_OK) return status;
    if (animated) return decode_animation(data, length, options, frames_to_load, fail_on, image, error, error_length);
    if (format == MAGPIE_FORMAT_GIF && !options->partial) {
        // The first frame cut short shows the rows that arrived, as browsers and Pillow show
        // them; frame data that is all there but corrupt still fails.
        int partial_first_frame = 0;
        if (magpie_gif_scan(data, length, &partial_first_frame) == 0 && partial_first_frame) fail_on = VIPS_FAIL_ON_NONE;
    }
    // Streaming (sequential) reads save memory, but rotation and HEIF need random access.
    int sequential = image->source.orientation == 1 && (format == MAGPIE_FORMAT_PNG || format == MAGPIE_FORMAT_JPEG);
    VipsAccess access = sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM;
    VipsImage *decoded = NULL;
    status = thumbnail ? open_thumbnail(data, length, options, image, access, fail_on, &decoded, error, error_length)
                       : open_whole(data, length, options, image, access, fail_on, &decoded, error, error_length);
    if (status != MAGPIE_STATUS_OK) return status;
    status = finish_still(decoded, options, image, error, error_length);
    g_object_unref(decoded);
    return status;
}
