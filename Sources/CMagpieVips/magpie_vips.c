#include "magpie_vips.h"
#include "jpeg_dc.h"
#include "png_guard.h"
#include "shim_errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>
#include <vips/vector.h>

static magpie_vips_log_fn magpie_log = NULL;

static void forward_glib_log(const gchar *domain, GLogLevelFlags level, const gchar *message,
                             gpointer user_data) {
    (void)domain;
    (void)user_data;
    if (!magpie_log) return;
    int mapped = MAGPIE_VIPS_LOG_DEBUG;
    if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL)) mapped = MAGPIE_VIPS_LOG_ERROR;
    else if (level & G_LOG_LEVEL_WARNING) mapped = MAGPIE_VIPS_LOG_WARNING;
    // libvips reports routine progress with g_info; only g_message is worth an info line.
    else if (level & G_LOG_LEVEL_MESSAGE) mapped = MAGPIE_VIPS_LOG_INFO;
    magpie_log(mapped, message ? message : "");
}

static GOnce init_once = G_ONCE_INIT;
static char init_error[256];

static gpointer initialize_once(gpointer log) {
    magpie_log = (magpie_vips_log_fn)log;
    if (VIPS_INIT("magpie")) {
        magpie_take_error(init_error, sizeof init_error, "libvips failed to start");
        return GINT_TO_POINTER(1);
    }
    // Decoded results are cached by Magpie itself; libvips' operation cache would only
    // hold file-sized buffers alive behind our back.
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    // Loaders built on large third-party libraries (ImageMagick, PDF, SVG...) are not
    // written for hostile input; Magpie only ever needs the web formats.
    vips_block_untrusted_set(TRUE);
    // libvips compiles a liborc program for each resample it builds; during a 20,000-thumbnail
    // soak on two decoding threads the process died with SIGSEGV inside liborc's code allocator
    // (orc_code_allocate_codemem), the crash sharp's users avoid by turning liborc off.
    // Without it the resample runs libvips' C loops: a 12 MP JPEG thumbnail took 52.3 -> 53.8 ms.
    vips_vector_set_enabled(FALSE);
    const GLogLevelFlags levels =
        G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION;
    g_log_set_handler("VIPS", levels, forward_glib_log, NULL);
    g_log_set_handler("GLib-GObject", levels, forward_glib_log, NULL);
    return GINT_TO_POINTER(0);
}

int magpie_vips_initialize(magpie_vips_log_fn log, char *error, size_t error_length) {
    int status = GPOINTER_TO_INT(g_once(&init_once, initialize_once, (gpointer)log));
    if (status != 0) magpie_set_error(error, error_length, init_error);
    return status;
}

// The web formats Magpie decodes. Anything else is refused even when libvips could read it.
static int loader_is_allowed(const char *loader) {
    static const char *allowed[] = {
        "VipsForeignLoadJpegBuffer", "VipsForeignLoadPngBuffer", "VipsForeignLoadNsgifBuffer",
        "VipsForeignLoadWebpBuffer", "VipsForeignLoadHeifBuffer", NULL,
    };
    for (int i = 0; allowed[i]; i++)
        if (strcmp(loader, allowed[i]) == 0) return 1;
    return 0;
}

static const char *heif_loader = "VipsForeignLoadHeifBuffer";

// libvips 8.14 does not recognise HEIF image sequences (brand "avis", "msf1"...) and hands
// them to ImageMagick, which is blocked; libheif reads their primary image well.
static int is_heif_sequence(const unsigned char *data, size_t length) {
    if (length < 12 || memcmp(data + 4, "ftyp", 4) != 0) return 0;
    static const char *brands[] = {"avis", "msf1", "hevc", "hevx", NULL};
    for (int i = 0; brands[i]; i++)
        if (memcmp(data + 8, brands[i], 4) == 0) return 1;
    return 0;
}

static int find_loader(const void *data, size_t length, magpie_vips_header *header,
                       char *error, size_t error_length) {
    const char *loader = vips_foreign_find_load_buffer(data, length);
    if (is_heif_sequence(data, length)) {
        vips_error_clear();
        loader = heif_loader;
    }
    if (!loader) {
        vips_error_clear();
        magpie_set_error(error, error_length, "the data is not in an image format Magpie recognises");
        return MAGPIE_VIPS_NOT_AN_IMAGE;
    }
    if (!loader_is_allowed(loader)) {
        char text[128];
        g_snprintf(text, sizeof text, "unsupported image format (libvips loader %s)", loader);
        magpie_set_error(error, error_length, text);
        return MAGPIE_VIPS_UNSUPPORTED;
    }
    g_strlcpy(header->loader, loader, sizeof header->loader);
    return MAGPIE_VIPS_OK;
}

static int fill_header(VipsImage *image, magpie_vips_header *header) {
    header->width = vips_image_get_width(image);
    header->height = vips_image_get_height(image);
    header->pages = vips_image_get_n_pages(image);
    header->orientation = vips_image_get_orientation(image);
    if (header->orientation < 1 || header->orientation > 8) header->orientation = 1;
    return 0;
}

// Opens lazily with the chosen loader: only the header is read until pixels are asked for.
static VipsImage *open_image(const void *data, size_t length, const char *loader,
                             VipsAccess access, VipsFailOn fail_on) {
    if (strcmp(loader, heif_loader) == 0) {
        VipsImage *image = NULL;
        if (vips_heifload_buffer((void *)data, length, &image, "access", access, "fail_on", fail_on, NULL))
            return NULL;
        return image;
    }
    return vips_image_new_from_buffer(data, length, "", "access", access, "fail_on", fail_on, NULL);
}

int magpie_vips_read_header(const void *data, size_t length, magpie_vips_header *header,
                            char *error, size_t error_length) {
    memset(header, 0, sizeof *header);
    if (magpie_png_is_png(data, length) && !magpie_png_chunks_fit(data, length, error, error_length))
        return MAGPIE_VIPS_FAILED;
    int status = find_loader(data, length, header, error, error_length);
    if (status != MAGPIE_VIPS_OK) return status;
    VipsImage *image = open_image(data, length, header->loader, VIPS_ACCESS_RANDOM, VIPS_FAIL_ON_NONE);
    if (!image) {
        magpie_take_error(error, error_length, "could not read the image header");
        return MAGPIE_VIPS_FAILED;
    }
    fill_header(image, header);
    g_object_unref(image);
    return MAGPIE_VIPS_OK;
}

// Brings any decoded image to 8-bit sRGB with an alpha band.
static int to_rgba8(VipsImage *in, VipsImage **out) {
    VipsImage *current = in;
    g_object_ref(current);
    VipsImage *next = NULL;

    if (vips_image_get_interpretation(current) == VIPS_INTERPRETATION_CMYK) {
        // A CMYK JPEG without a profile still needs one to become RGB; libvips ships a
        // generic CMYK profile for that.
        if (vips_icc_import(current, &next, "input_profile", "cmyk", "embedded", TRUE, NULL))
            goto fail;
        g_object_unref(current);
        current = next;
    }
    if (vips_image_get_interpretation(current) != VIPS_INTERPRETATION_sRGB ||
        vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
        if (vips_colourspace_issupported(current)) {
            if (vips_colourspace(current, &next, VIPS_INTERPRETATION_sRGB, NULL)) goto fail;
            g_object_unref(current);
            current = next;
        }
    }
    if (vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
        if (vips_cast_uchar(current, &next, NULL)) goto fail;
        g_object_unref(current);
        current = next;
    }
    int bands = vips_image_get_bands(current);
    if (bands == 1 || bands == 2) {
        // Grey without an interpretation libvips can convert: replicate the grey band.
        VipsImage *grey = NULL, *rgb = NULL;
        if (vips_extract_band(current, &grey, 0, NULL)) goto fail;
        VipsImage *triple[3] = {grey, grey, grey};
        int joined = vips_bandjoin(triple, &rgb, 3, NULL);
        g_object_unref(grey);
        if (joined) goto fail;
        if (bands == 2) {
            VipsImage *alpha = NULL, *pair[2];
            if (vips_extract_band(current, &alpha, 1, NULL)) { g_object_unref(rgb); goto fail; }
            pair[0] = rgb;
            pair[1] = alpha;
            joined = vips_bandjoin(pair, &next, 2, NULL);
            g_object_unref(alpha);
            g_object_unref(rgb);
            if (joined) goto fail;
        } else {
            next = rgb;
        }
        g_object_unref(current);
        current = next;
        bands = vips_image_get_bands(current);
    }
    if (bands == 3) {
        if (vips_bandjoin_const1(current, &next, 255.0, NULL)) goto fail;
        g_object_unref(current);
        current = next;
    } else if (bands > 4) {
        if (vips_extract_band(current, &next, 0, "n", 4, NULL)) goto fail;
        g_object_unref(current);
        current = next;
    }
    *out = current;
    return 0;
fail:
    g_object_unref(current);
    return -1;
}

// A GIF whose logical screen is empty has nothing to show; libnsgif invents a size from the
// first frame's descriptor instead of refusing it.
static int validate_gif(const unsigned char *data, size_t length, char *error, size_t error_length) {
    if (length < 10) {
        magpie_set_error(error, error_length, "damaged GIF: the header is truncated");
        return MAGPIE_VIPS_FAILED;
    }
    int width = data[6] | (data[7] << 8);
    int height = data[8] | (data[9] << 8);
    if (width == 0 || height == 0) {
        magpie_set_error(error, error_length, "damaged GIF: the logical screen is empty");
        return MAGPIE_VIPS_FAILED;
    }
    return MAGPIE_VIPS_OK;
}

// libvips' thumbnail decodes a JPEG at a scale that leaves a factor of two for its own
// resampler (a 4000 px photo for a 256 px box is decoded at 1000 px). libjpeg's scaled
// decode already averages whole 8x8 blocks, so nothing aliases when it goes further; the
// largest scale that still covers the box (500 px here) took a 12 MP photo from 33 to 29 ms
// and its peak memory from 4.0 to 2.9 MB. The box applies to the upright image, so a
// rotated file swaps it.
static int jpeg_shrink_for_box(const magpie_vips_header *source, int target_width, int target_height, int fill) {
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

int magpie_vips_decode(const void *data, size_t length, uint64_t max_pixels,
                       int target_width, int target_height, int fill, int partial,
                       magpie_vips_image *image, char *error, size_t error_length) {
    memset(image, 0, sizeof *image);
    int status = magpie_vips_read_header(data, length, &image->source, error, error_length);
    if (status != MAGPIE_VIPS_OK) return status;

    uint64_t declared = (uint64_t)image->source.width * (uint64_t)image->source.height;
    if (max_pixels > 0 && declared > max_pixels) {
        char text[160];
        g_snprintf(text, sizeof text, "the image declares %dx%d pixels, more than the limit of %llu",
                   image->source.width, image->source.height, (unsigned long long)max_pixels);
        magpie_set_error(error, error_length, text);
        return MAGPIE_VIPS_TOO_MANY_PIXELS;
    }

    const char *loader = image->source.loader;
    int is_jpeg = strcmp(loader, "VipsForeignLoadJpegBuffer") == 0;
    if (partial && !is_jpeg) {
        magpie_set_error(error, error_length, "previews are made from JPEG only");
        return MAGPIE_VIPS_UNSUPPORTED;
    }
    int is_png = strcmp(loader, "VipsForeignLoadPngBuffer") == 0;
    int is_gif = strcmp(loader, "VipsForeignLoadNsgifBuffer") == 0;
    if (is_png && !magpie_png_data_is_sound(data, length, error, error_length)) return MAGPIE_VIPS_FAILED;
    if (is_gif && (status = validate_gif(data, length, error, error_length)) != MAGPIE_VIPS_OK) return status;
    // libnsgif reports corrupt frame data only as a warning.
    VipsFailOn fail_on = partial ? VIPS_FAIL_ON_NONE : is_gif ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_ERROR;
    // Streaming (sequential) reads save memory, but rotation and HEIF need random access.
    int sequential = image->source.orientation == 1 && (is_png || is_jpeg);
    VipsAccess access = sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM;

    VipsImage *decoded = NULL;
    int thumbnail = target_width > 0 || target_height > 0;
    int heif_sequence = strcmp(loader, heif_loader) == 0 && is_heif_sequence(data, length);
    if (thumbnail && (is_jpeg || heif_sequence)) {
        // HEIF sequences: vips_thumbnail_buffer would pick the (blocked) ImageMagick loader.
        VipsImage *loaded = NULL;
        int shrink = is_jpeg ? jpeg_shrink_for_box(&image->source, target_width, target_height, fill) : 1;
        // At 1/8 a progressive JPEG needs only its DC scans; `loaded` stays NULL otherwise.
        if (shrink == 8 && !partial) magpie_jpeg_dc_open(data, length, image->source.orientation, &loaded);
        if (!loaded)
            loaded = is_jpeg ? open_shrunk_jpeg(data, length, shrink, access, fail_on)
                             : open_image(data, length, loader, access, fail_on);
        if (!loaded) {
            magpie_take_error(error, error_length, "decoding failed");
            return MAGPIE_VIPS_FAILED;
        }
        int width = target_width > 0 ? target_width : VIPS_MAX_COORD;
        int height = target_height > 0 ? target_height : VIPS_MAX_COORD;
        int failed = vips_thumbnail_image(loaded, &decoded, width, "height", height, "size", VIPS_SIZE_DOWN,
                                          "crop", fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE, NULL);
        g_object_unref(loaded);
        if (failed) {
            magpie_take_error(error, error_length, "decoding failed");
            return MAGPIE_VIPS_FAILED;
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
            return MAGPIE_VIPS_FAILED;
        }
    } else {
        VipsImage *loaded = open_image(data, length, loader, access, fail_on);
        if (!loaded) {
            magpie_take_error(error, error_length, "decoding failed");
            return MAGPIE_VIPS_FAILED;
        }
        int rotated = vips_autorot(loaded, &decoded, NULL);
        g_object_unref(loaded);
        if (rotated) {
            magpie_take_error(error, error_length, "applying the EXIF orientation failed");
            return MAGPIE_VIPS_FAILED;
        }
    }

    VipsImage *rgba = NULL;
    int converted = to_rgba8(decoded, &rgba);
    g_object_unref(decoded);
    if (converted) {
        magpie_take_error(error, error_length, "converting to RGBA failed");
        return MAGPIE_VIPS_FAILED;
    }
    // Nothing is decoded yet: libvips runs the pipeline when magpie_vips_render asks for pixels.
    image->handle = rgba;
    image->width = vips_image_get_width(rgba);
    image->height = vips_image_get_height(rgba);
    return MAGPIE_VIPS_OK;
}

int magpie_vips_render(magpie_vips_image *image, unsigned char *destination, size_t length,
                       char *error, size_t error_length) {
    VipsImage *rgba = image->handle;
    if (!rgba || length != VIPS_IMAGE_SIZEOF_IMAGE(rgba)) {
        magpie_set_error(error, error_length, "the destination does not fit the image");
        return MAGPIE_VIPS_FAILED;
    }
    // What vips_image_write_to_memory does, into the caller's buffer instead of a new one.
    VipsImage *target = vips_image_new_from_memory(destination, length, rgba->Xsize, rgba->Ysize,
                                                   rgba->Bands, rgba->BandFmt);
    if (!target) {
        magpie_take_error(error, error_length, "decoding failed");
        return MAGPIE_VIPS_FAILED;
    }
    int failed = vips_image_write(rgba, target);
    g_object_unref(target);
    if (failed) {
        magpie_take_error(error, error_length, "decoding failed");
        return MAGPIE_VIPS_FAILED;
    }
    return MAGPIE_VIPS_OK;
}

void magpie_vips_free_image(magpie_vips_image *image) {
    if (image && image->handle) {
        g_object_unref(image->handle);
        image->handle = NULL;
    }
}

int magpie_vips_encode(const unsigned char *pixels, int width, int height, const char *format,
                       int quality, unsigned char **output, size_t *output_length,
                       char *error, size_t error_length) {
    *output = NULL;
    *output_length = 0;
    VipsImage *image = vips_image_new_from_memory(pixels, (size_t)width * height * 4, width,
                                                  height, 4, VIPS_FORMAT_UCHAR);
    if (!image) {
        magpie_take_error(error, error_length, "could not wrap the pixels");
        return MAGPIE_VIPS_FAILED;
    }
    image->Type = VIPS_INTERPRETATION_sRGB;
    void *buffer = NULL;
    size_t size = 0;
    int failed;
    if (strcmp(format, "png") == 0) {
        failed = vips_pngsave_buffer(image, &buffer, &size, NULL);
    } else if (strcmp(format, "jpeg") == 0 || strcmp(format, "jpeg-progressive") == 0) {
        VipsImage *flat = NULL;
        failed = vips_flatten(image, &flat, NULL);
        if (!failed) {
            failed = vips_jpegsave_buffer(flat, &buffer, &size, "Q", quality, "interlace",
                                          strcmp(format, "jpeg-progressive") == 0, NULL);
            g_object_unref(flat);
        }
    } else if (strcmp(format, "webp") == 0) {
        failed = vips_webpsave_buffer(image, &buffer, &size, "Q", quality, NULL);
    } else if (strcmp(format, "gif") == 0) {
        failed = vips_gifsave_buffer(image, &buffer, &size, NULL);
    } else {
        g_object_unref(image);
        magpie_set_error(error, error_length, "unknown output format");
        return MAGPIE_VIPS_UNSUPPORTED;
    }
    g_object_unref(image);
    if (failed) {
        magpie_take_error(error, error_length, "encoding failed");
        return MAGPIE_VIPS_FAILED;
    }
    *output = buffer;
    *output_length = size;
    return MAGPIE_VIPS_OK;
}

void magpie_vips_free_buffer(void *buffer) { g_free(buffer); }

int magpie_vips_render_text(const char *text, int height_pixels, unsigned char **mask,
                            int *width, int *height, char *error, size_t error_length) {
    *mask = NULL;
    *width = 0;
    *height = 0;
    VipsImage *rendered = NULL;
    // The font size is in points at the given dpi; 72 dpi makes a point one pixel.
    char font[64];
    snprintf(font, sizeof font, "sans bold %d", height_pixels > 4 ? height_pixels * 3 / 4 : 3);
    if (vips_text(&rendered, text, "font", font, "dpi", 72, NULL)) {
        magpie_take_error(error, error_length, "could not render text");
        return MAGPIE_VIPS_FAILED;
    }
    size_t size = 0;
    void *bytes = vips_image_write_to_memory(rendered, &size);
    *width = vips_image_get_width(rendered);
    *height = vips_image_get_height(rendered);
    g_object_unref(rendered);
    if (!bytes || size != (size_t)*width * *height) {
        g_free(bytes);
        magpie_set_error(error, error_length, "unexpected text image layout");
        return MAGPIE_VIPS_FAILED;
    }
    *mask = bytes;
    return MAGPIE_VIPS_OK;
}
