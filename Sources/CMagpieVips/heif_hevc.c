// HEVC-coded HEIF (HEIC: iPhone photos) decoded and written with the system's libheif rather than
// libvips'.
//
// The libvips Magpie installs where the distribution's is older than 8.15 (pyvips-binary's) is
// built without an HEVC decoder, for patent reasons; the distribution's libheif has one
// (libde265) and encoder (x265) and links no glib, so it can share the process with that libvips' own glib. One
// route on every libvips keeps HEIC decoding the same wherever Magpie runs. AVIF stays with
// libvips, whose AV1 decoders are there on every build.
#include "heif_hevc.h"

#include <glib.h>
#include <limits.h>
#include <libheif/heif.h>
#include <stdio.h>
#include <string.h>

int magpie_heif_is_hevc(const void *data, size_t length) {
    if (length < 16 || length > INT_MAX) return 0;
    const uint8_t *bytes = data;
    int size = (int)length;
    if (heif_has_compatible_brand(bytes, size, "avif") || heif_has_compatible_brand(bytes, size, "avis")) return 0;
    static const char *hevc_brands[] = {"heic", "heix", "heim", "heis", "hevc", "hevx", NULL};
    heif_brand2 main_brand = heif_read_main_brand(bytes, size);
    for (int i = 0; hevc_brands[i]; i++)
        if (main_brand == heif_fourcc_to_brand(hevc_brands[i]) || heif_has_compatible_brand(bytes, size, hevc_brands[i]))
            return 1;
    return 0;
}

static void set_heif_error(char *error, size_t error_length, const char *what, struct heif_error failure) {
    if (error && error_length)
        snprintf(error, error_length, "%s: %s", what, failure.message ? failure.message : "libheif failed");
}

// The primary image's colour profile, when it has an ICC one (nclx colour descriptions are left
// out, as libvips leaves them out).
static void attach_profile(const struct heif_image_handle *handle, VipsImage *image) {
    enum heif_color_profile_type type = heif_image_handle_get_color_profile_type(handle);
    if (type != heif_color_profile_type_prof && type != heif_color_profile_type_rICC) return;
    size_t size = heif_image_handle_get_raw_color_profile_size(handle);
    if (size == 0) return;
    void *profile = g_try_malloc(size);
    if (!profile) return;
    if (heif_image_handle_get_raw_color_profile(handle, profile).code == heif_error_Ok)
        vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, profile, size);
    g_free(profile);
}

// Decodes `handle` (the primary image or a thumbnail) into a new 8-bit sRGB image with its
// profile. Rotation, mirroring and cropping (irot, imir, clap) are applied here, as libvips
// applies them, so the EXIF orientation is not applied again.
static VipsImage *decode_handle(struct heif_image_handle *handle, char *error, size_t error_length) {
    VipsImage *result = NULL;
    struct heif_image *decoded = NULL;
    unsigned char *packed = NULL;
    int alpha = heif_image_handle_has_alpha_channel(handle);
    int bands = alpha ? 4 : 3;
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    struct heif_error failure = heif_decode_image(handle, &decoded, heif_colorspace_RGB,
                                                  alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options);
    heif_decoding_options_free(options);
    if (failure.code != heif_error_Ok) {
        set_heif_error(error, error_length, "decoding failed", failure);
        goto done;
    }
    int width = heif_image_get_width(decoded, heif_channel_interleaved);
    int height = heif_image_get_height(decoded, heif_channel_interleaved);
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride);
    if (!plane || width <= 0 || height <= 0 || heif_image_get_bits_per_pixel_range(decoded, heif_channel_interleaved) != 8) {
        magpie_set_error(error, error_length, "decoding failed: libheif gave no 8-bit RGB plane");
        goto done;
    }
    size_t row = (size_t)width * bands;
    size_t size = row * height;
    // libheif pads its rows; libvips wants them packed.
    const unsigned char *pixels = plane;
    if ((size_t)stride != row) {
        packed = g_try_malloc(size);
        if (!packed) {
            magpie_set_error(error, error_length, "out of memory for the decoded HEIF");
            goto done;
        }
        for (int y = 0; y < height; y++) memcpy(packed + row * y, plane + (size_t)stride * y, row);
        pixels = packed;
    }
    result = vips_image_new_from_memory_copy(pixels, size, width, height, bands, VIPS_FORMAT_UCHAR);
    if (!result) {
        magpie_take_error(error, error_length, "decoding failed");
        goto done;
    }
    result->Type = VIPS_INTERPRETATION_sRGB;
    attach_profile(handle, result);
    vips_image_set_int(result, VIPS_META_ORIENTATION, 1);
done:
    g_free(packed);
    if (decoded) heif_image_release(decoded);
    return result;
}

// The file's primary image handle, in a context the caller frees; NULL with `error` set.
static struct heif_image_handle *open_primary(const void *data, size_t length, struct heif_context *context, char *error,
                                              size_t error_length) {
    struct heif_error failure = heif_context_read_from_memory_without_copy(context, data, length, NULL);
    struct heif_image_handle *handle = NULL;
    if (failure.code == heif_error_Ok) failure = heif_context_get_primary_image_handle(context, &handle);
    if (failure.code != heif_error_Ok) {
        set_heif_error(error, error_length, "damaged HEIF", failure);
        return NULL;
    }
    return handle;
}

VipsImage *magpie_heif_hevc_open(const void *data, size_t length, char *error, size_t error_length) {
    struct heif_context *context = heif_context_alloc();
    if (!context) {
        magpie_set_error(error, error_length, "libheif could not start");
        return NULL;
    }
    VipsImage *result = NULL;
    struct heif_image_handle *handle = open_primary(data, length, context, error, error_length);
    if (handle) {
        result = decode_handle(handle, error, error_length);
        heif_image_handle_release(handle);
    }
    heif_context_free(context);
    return result;
}

static struct heif_error append_written(struct heif_context *context, const void *data, size_t size, void *output) {
    (void)context;
    g_byte_array_append(output, data, (guint)size);
    struct heif_error written = {heif_error_Ok, heif_suberror_Unspecified, "Success"};
    return written;
}

magpie_status magpie_heif_hevc_save(const unsigned char *pixels, int width, int height, int quality, int keep_alpha, void **buffer,
                                    size_t *size, char *error, size_t error_length) {
    magpie_status status = MAGPIE_STATUS_FAILED;
    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    GByteArray *output = NULL;
    struct heif_error failure = heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder);
    if (failure.code != heif_error_Ok) {
        set_heif_error(error, error_length, "this libheif has no HEVC encoder", failure);
        status = MAGPIE_STATUS_UNSUPPORTED;
        goto done;
    }
    heif_encoder_set_lossy_quality(encoder, quality);
    // x265's own default preset is several times slower for files a few per cent smaller, too
    // slow for images made per request (as AVIF's effort is lowered in encode.c).
    heif_encoder_set_parameter_string(encoder, "preset", "fast");
    // One thread, as every other encode runs on the decoding thread that asked for it: x265's
    // own pools would take every core for each request (Magpie sizes its threads to the cores).
    heif_encoder_set_parameter_string(encoder, "x265:pools", "1");
    heif_encoder_set_parameter_string(encoder, "x265:frame-threads", "1");
    failure = heif_image_create(width, height, heif_colorspace_RGB, keep_alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
                                &image);
    if (failure.code == heif_error_Ok) failure = heif_image_add_plane(image, heif_channel_interleaved, width, height, 8);
    if (failure.code != heif_error_Ok) {
        set_heif_error(error, error_length, "could not hand the pixels to libheif", failure);
        goto done;
    }
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    int bands = keep_alpha ? 4 : 3;
    for (int y = 0; y < height; y++) {
        const unsigned char *source = pixels + (size_t)y * width * 4;
        uint8_t *row = plane + (size_t)stride * y;
        if (keep_alpha) memcpy(row, source, (size_t)width * 4);
        else
            for (int x = 0; x < width; x++) memcpy(row + x * bands, source + x * 4, 3);
    }
    failure = heif_context_encode_image(context, image, encoder, NULL, NULL);
    if (failure.code != heif_error_Ok) {
        set_heif_error(error, error_length, "HEVC encoding failed", failure);
        goto done;
    }
    output = g_byte_array_new();
    struct heif_writer writer = {.writer_api_version = 1, .write = append_written};
    failure = heif_context_write(context, &writer, output);
    if (failure.code != heif_error_Ok) {
        set_heif_error(error, error_length, "could not write the HEIF file", failure);
        goto done;
    }
    *size = output->len;
    *buffer = g_byte_array_free(output, FALSE);
    output = NULL;
    status = MAGPIE_STATUS_OK;
done:
    if (output) g_byte_array_unref(output);
    if (image) heif_image_release(image);
    if (encoder) heif_encoder_release(encoder);
    heif_context_free(context);
    return status;
}
