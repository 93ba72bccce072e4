#include "magpie_decode.h"
#include "jpeg_dc.h"
#include "png_guard.h"
#include "shim_internal.h"

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
    int swapped = source->orientation >= 5;
    double width = swapped ? source->height : source->width;
    double height = swapped ? source->width : source->height;
    double horizontal = target_width > 0 ? width / target_width : 0;
    double vertical = target_height > 0 ? height / target_height : 0;
    double shrink;
    if (horizontal > 0 && vertical > 0) shrink = fill ? MIN(horizontal, vertical) : MAX(horizontal, vertical);
    else shrink = MAX(horizontal, vertical);
    // libvips sizes the shrunk image by integer division and aborts on a zero side.
    for (int factor = 8; factor > 1; factor /= 2)
        if (shrink >= factor && source->width >= factor && source->height >= factor) return factor;
    return 1;
}

// Opens a JPEG decoded at 1/shrink of its size (libjpeg's scaled IDCT).
static VipsImage *open_shrunk_jpeg(const void *data, size_t length, int shrink, VipsAccess access, VipsFailOn fail_on) {
    VipsImage *image = NULL;
    if (vips_jpegload_buffer((void *)data, length, &image, "shrink", shrink, "access", access, "fail_on", fail_on, NULL))
        return NULL;
    return image;
}

magpie_status magpie_decode(const void *data, size_t length, const magpie_decode_options *options,
                  magpie_image *image, char *error, size_t error_length) {
    memset(image, 0, sizeof *image);
    const uint64_t max_pixels = options->max_pixels;
    const int target_width = options->target_width, target_height = options->target_height;
    const int fill = options->fill, partial = options->partial;
    int status = magpie_read_header(data, length, &image->source, error, error_length);
    if (status != MAGPIE_STATUS_OK) return status;

    uint64_t declared = (uint64_t)image->source.width * (uint64_t)image->source.height;
    if (max_pixels > 0 && declared > max_pixels) {
        char text[160];
        g_snprintf(text, sizeof text, "the image declares %dx%d pixels, more than the limit of %llu",
                   image->source.width, image->source.height, (unsigned long long)max_pixels);
        magpie_set_error(error, error_length, text);
        return MAGPIE_STATUS_TOO_MANY_PIXELS;
    }

    const magpie_format format = image->source.format;
    int is_jpeg = format == MAGPIE_FORMAT_JPEG;
    if (partial && !is_jpeg) {
        magpie_set_error(error, error_length, "previews are made from JPEG only");
        return MAGPIE_STATUS_UNSUPPORTED;
    }
    int is_png = format == MAGPIE_FORMAT_PNG;
    int is_gif = format == MAGPIE_FORMAT_GIF;
    if (is_png && !magpie_png_data_is_sound(data, length, error, error_length)) return MAGPIE_STATUS_FAILED;
    if (is_gif && (status = validate_gif(data, length, error, error_length)) != MAGPIE_STATUS_OK) return status;
    // libnsgif reports corrupt frame data only as a warning.
    VipsFailOn fail_on = partial ? VIPS_FAIL_ON_NONE : is_gif ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_ERROR;
    // Streaming (sequential) reads save memory, but rotation and HEIF need random access.
    int sequential = image->source.orientation == 1 && (is_png || is_jpeg);
    VipsAccess access = sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM;

    VipsImage *decoded = NULL;
    int thumbnail = target_width > 0 || target_height > 0;
    int heif_sequence = format == MAGPIE_FORMAT_HEIF && magpie_is_heif_sequence(data, length);
    if (thumbnail && (is_jpeg || heif_sequence)) {
        // HEIF sequences: vips_thumbnail_buffer would pick the (blocked) ImageMagick loader.
        VipsImage *loaded = NULL;
        int shrink = is_jpeg ? jpeg_shrink_for_box(&image->source, target_width, target_height, fill) : 1;
        // At 1/8 a progressive JPEG needs only its DC scans; `loaded` stays NULL otherwise.
        if (shrink == 8 && !partial) magpie_jpeg_dc_open(data, length, image->source.orientation, &loaded);
        if (!loaded)
            loaded = is_jpeg ? open_shrunk_jpeg(data, length, shrink, access, fail_on)
                             : magpie_open_image(data, length, format, access, fail_on);
        if (!loaded) {
            magpie_take_error(error, error_length, "decoding failed");
            return MAGPIE_STATUS_FAILED;
        }
        int width = target_width > 0 ? target_width : VIPS_MAX_COORD;
        int height = target_height > 0 ? target_height : VIPS_MAX_COORD;
        int failed = vips_thumbnail_image(loaded, &decoded, width, "height", height, "size", VIPS_SIZE_DOWN,
                                          "crop", fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, NULL);
        g_object_unref(loaded);
        if (failed) {
            magpie_take_error(error, error_length, "decoding failed");
            return MAGPIE_STATUS_FAILED;
        }
    } else if (thumbnail) {
        int width = target_width > 0 ? target_width : VIPS_MAX_COORD;
        int height = target_height > 0 ? target_height : VIPS_MAX_COORD;
        if (vips_thumbnail_buffer((void *)data, length, &decoded, width,
                                  "height", height,
                                  "size", VIPS_SIZE_DOWN,
                                  "crop", fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
                                  "fail_on", fail_on,
                                  NULL)) {
            magpie_take_error(error, error_length, "decoding failed");
            return MAGPIE_STATUS_FAILED;
        }
    } else {
        VipsImage *loaded = magpie_open_image(data, length, format, access, fail_on);
        if (!loaded) {
            magpie_take_error(error, error_length, "decoding failed");
            return MAGPIE_STATUS_FAILED;
        }
        int rotated = vips_autorot(loaded, &decoded, NULL);
        g_object_unref(loaded);
        if (rotated) {
            magpie_take_error(error, error_length, "applying the EXIF orientation failed");
            return MAGPIE_STATUS_FAILED;
        }
    }

    VipsImage *rgba = NULL;
    int converted = magpie_to_rgba8(decoded, &rgba);
    g_object_unref(decoded);
    if (converted) {
        magpie_take_error(error, error_length, "converting to RGBA failed");
        return MAGPIE_STATUS_FAILED;
    }
    // Nothing is decoded yet: libvips runs the pipeline when magpie_render asks for pixels.
    image->handle = rgba;
    image->width = vips_image_get_width(rgba);
    image->height = vips_image_get_height(rgba);
    return MAGPIE_STATUS_OK;
}

// Below this source size libvips' thread pool costs more than it saves: handing a small image's few
// tiles to worker threads and back took longer than decoding them (a warm load of 240 cached
// 256 px thumbnails spent more time in thread switches and GLib locks than in libjpeg).
#define SMALL_IMAGE_PIXELS (512 * 512)

// Computes the whole image on the calling thread, into one region, and copies its rows out.
static magpie_status render_here(VipsImage *image, unsigned char *destination, char *error, size_t error_length) {
    VipsRegion *region = vips_region_new(image);
    VipsRect all = {0, 0, image->Xsize, image->Ysize};
    if (!region || vips_region_prepare(region, &all)) {
        if (region) g_object_unref(region);
        magpie_take_error(error, error_length, "decoding failed");
        return MAGPIE_STATUS_FAILED;
    }
    size_t row = VIPS_IMAGE_SIZEOF_LINE(image);
    for (int y = 0; y < image->Ysize; y++) memcpy(destination + row * y, VIPS_REGION_ADDR(region, 0, y), row);
    g_object_unref(region);
    return MAGPIE_STATUS_OK;
}

magpie_status magpie_render(magpie_image *image, unsigned char *destination, size_t length,
                       char *error, size_t error_length) {
    VipsImage *rgba = image->handle;
    if (!rgba || length != VIPS_IMAGE_SIZEOF_IMAGE(rgba)) {
        magpie_set_error(error, error_length, "the destination does not fit the image");
        return MAGPIE_STATUS_FAILED;
    }
    // The source's size measures the work, not the output's: a 256 px thumbnail of a 12 MP
    // photo still has 12 MP to shrink.
    uint64_t source_pixels = (uint64_t)image->source.width * (uint64_t)image->source.height;
    if (source_pixels > 0 && source_pixels <= SMALL_IMAGE_PIXELS) return render_here(rgba, destination, error, error_length);
    // What vips_image_write_to_memory does, into the caller's buffer instead of a new one.
    VipsImage *target = vips_image_new_from_memory(destination, length, rgba->Xsize, rgba->Ysize,
                                                   rgba->Bands, rgba->BandFmt);
    if (!target) {
        magpie_take_error(error, error_length, "decoding failed");
        return MAGPIE_STATUS_FAILED;
    }
    int failed = vips_image_write(rgba, target);
    g_object_unref(target);
    if (failed) {
        magpie_take_error(error, error_length, "decoding failed");
        return MAGPIE_STATUS_FAILED;
    }
    return MAGPIE_STATUS_OK;
}

void magpie_free_image(magpie_image *image) {
    if (image && image->handle) {
        g_object_unref(image->handle);
        image->handle = NULL;
    }
}

