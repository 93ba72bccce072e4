// JPEG XL, read and written with the system's libjxl: the libvips Magpie installs is built
// without it. The distribution's libjxl links no glib, and the installed libvips exports none of
// its own codecs' or lcms2's symbols, so libjxl with the distribution's lcms2 shares the process.
// Only the first frame is read, upright, as 8-bit sRGB with alpha.
#include "jpeg_xl.h"

#include <jxl/decode.h>
#include <jxl/encode.h>
#include <math.h>
#include <string.h>

int magpie_jxl_is_jxl(const void *data, size_t length) {
    JxlSignature signature = JxlSignatureCheck(data, length);
    return signature == JXL_SIG_CODESTREAM || signature == JXL_SIG_CONTAINER;
}

/// A decoder given the whole file, reporting the events asked for.
static JxlDecoder *start_decoder(const void *data, size_t length, int events) {
    JxlDecoder *decoder = JxlDecoderCreate(NULL);
    if (!decoder) return NULL;
    if (JxlDecoderSubscribeEvents(decoder, events) != JXL_DEC_SUCCESS ||
        JxlDecoderSetInput(decoder, data, length) != JXL_DEC_SUCCESS) {
        JxlDecoderDestroy(decoder);
        return NULL;
    }
    JxlDecoderCloseInput(decoder);
    return decoder;
}

static void upright_size(const JxlBasicInfo *info, int *width, int *height) {
    // Orientations 5 to 8 turn the image a quarter: the stored sides swap.
    int swapped = info->orientation >= JXL_ORIENT_TRANSPOSE;
    *width = (int)(swapped ? info->ysize : info->xsize);
    *height = (int)(swapped ? info->xsize : info->ysize);
}

magpie_status magpie_jxl_size(const void *data, size_t length, int *width, int *height, char *error, size_t error_length) {
    JxlDecoder *decoder = start_decoder(data, length, JXL_DEC_BASIC_INFO);
    if (!decoder) {
        magpie_set_error(error, error_length, "libjxl could not start");
        return MAGPIE_STATUS_FAILED;
    }
    magpie_status status = MAGPIE_STATUS_FAILED;
    JxlBasicInfo info;
    if (JxlDecoderProcessInput(decoder) == JXL_DEC_BASIC_INFO && JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS) {
        upright_size(&info, width, height);
        status = *width > 0 && *height > 0 ? MAGPIE_STATUS_OK : MAGPIE_STATUS_FAILED;
    }
    if (status != MAGPIE_STATUS_OK) magpie_set_error(error, error_length, "the JPEG XL header is damaged or cut off");
    JxlDecoderDestroy(decoder);
    return status;
}

/// The profile of the decoded pixels, when libjxl describes them with one other than sRGB (the
/// pixels are then sRGB already, and a profile would only be converted to itself).
static void attach_profile(JxlDecoder *decoder, VipsImage *image) {
    JxlColorEncoding encoding;
    if (JxlDecoderGetColorAsEncodedProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS &&
        encoding.white_point == JXL_WHITE_POINT_D65 && encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB &&
        (encoding.color_space == JXL_COLOR_SPACE_GRAY || encoding.primaries == JXL_PRIMARIES_SRGB))
        return;
    size_t size = 0;
    if (JxlDecoderGetICCProfileSize(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &size) != JXL_DEC_SUCCESS || size == 0) return;
    void *profile = g_try_malloc(size);
    if (!profile) return;
    if (JxlDecoderGetColorAsICCProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, profile, size) == JXL_DEC_SUCCESS)
        vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, profile, size);
    g_free(profile);
}

VipsImage *magpie_jxl_open(const void *data, size_t length) {
    JxlDecoder *decoder = start_decoder(data, length, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE);
    if (!decoder) {
        vips_error("jxlload", "libjxl could not start");
        return NULL;
    }
    JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    JxlBasicInfo info;
    unsigned char *pixels = NULL;
    VipsImage *image = NULL;
    int width = 0, height = 0;
    const char *failure = "the JPEG XL file is damaged or cut off";
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_BASIC_INFO) {
            if (JxlDecoderGetBasicInfo(decoder, &info) != JXL_DEC_SUCCESS) break;
            upright_size(&info, &width, &height);
        } else if (status == JXL_DEC_COLOR_ENCODING) {
            // Lossy (XYB) files can be given in any space: sRGB, as Magpie's pixels are.
            JxlColorEncoding srgb;
            JxlColorEncodingSetToSRGB(&srgb, info.num_color_channels == 1);
            JxlDecoderSetPreferredColorProfile(decoder, &srgb);
        } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t size = 0;
            if (JxlDecoderImageOutBufferSize(decoder, &format, &size) != JXL_DEC_SUCCESS || size != (size_t)width * height * 4) break;
            pixels = g_try_malloc(size);
            if (!pixels) {
                failure = "out of memory for the decoded JPEG XL";
                break;
            }
            if (JxlDecoderSetImageOutBuffer(decoder, &format, pixels, size) != JXL_DEC_SUCCESS) break;
        } else if (status == JXL_DEC_FULL_IMAGE) {
            // The first frame is all Magpie shows.
            image = vips_image_new_from_memory_copy(pixels, (size_t)width * height * 4, width, height, 4, VIPS_FORMAT_UCHAR);
            if (image) {
                image->Type = VIPS_INTERPRETATION_sRGB;
                attach_profile(decoder, image);
                vips_image_set_int(image, VIPS_META_ORIENTATION, 1);
            }
            break;
        } else {
            break;
        }
    }
    if (!image) vips_error("jxlload", "%s", failure);
    g_free(pixels);
    JxlDecoderDestroy(decoder);
    return image;
}

/// libvips' reading of a 1-100 quality as a JPEG XL distance (0 is lossless).
static float distance_for_quality(int quality) {
    return quality >= 30 ? 0.1f + (100 - quality) * 0.09f : 6.4f + powf(2.5f, (30 - quality) / 5.0f) / 6.25f;
}

magpie_status magpie_jxl_save(const unsigned char *pixels, int width, int height, int quality, int keep_alpha, void **buffer, size_t *size,
                              char *error, size_t error_length) {
    JxlEncoder *encoder = JxlEncoderCreate(NULL);
    if (!encoder) {
        magpie_set_error(error, error_length, "libjxl could not start");
        return MAGPIE_STATUS_FAILED;
    }
    magpie_status status = MAGPIE_STATUS_FAILED;
    GByteArray *output = NULL;
    JxlBasicInfo info;
    JxlEncoderInitBasicInfo(&info);
    info.xsize = (uint32_t)width;
    info.ysize = (uint32_t)height;
    info.bits_per_sample = 8;
    info.num_color_channels = 3;
    info.num_extra_channels = keep_alpha ? 1 : 0;
    info.alpha_bits = keep_alpha ? 8 : 0;
    info.uses_original_profile = JXL_FALSE;
    JxlColorEncoding srgb;
    JxlColorEncodingSetToSRGB(&srgb, JXL_FALSE);
    JxlEncoderFrameSettings *settings = NULL;
    if (JxlEncoderSetBasicInfo(encoder, &info) != JXL_ENC_SUCCESS || JxlEncoderSetColorEncoding(encoder, &srgb) != JXL_ENC_SUCCESS ||
        !(settings = JxlEncoderFrameSettingsCreate(encoder, NULL))) {
        magpie_set_error(error, error_length, "libjxl refused the image's description");
        goto done;
    }
    // Effort 4 of 1-9: the default, 7, takes several times as long for files a few per cent
    // smaller, too slow for images made per request (as AVIF's effort is lowered in encode.c).
    JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, 4);
    JxlEncoderSetFrameDistance(settings, distance_for_quality(quality));
    JxlPixelFormat format = {keep_alpha ? 4 : 3, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    size_t bands = keep_alpha ? 4 : 3, count = (size_t)width * height;
    unsigned char *packed = (unsigned char *)pixels;
    if (!keep_alpha) {
        packed = g_malloc(count * 3);
        for (size_t index = 0; index < count; index++) memcpy(packed + index * 3, pixels + index * 4, 3);
    }
    JxlEncoderStatus added = JxlEncoderAddImageFrame(settings, &format, packed, count * bands);
    if (packed != pixels) g_free(packed);
    if (added != JXL_ENC_SUCCESS) {
        magpie_set_error(error, error_length, "libjxl refused the pixels");
        goto done;
    }
    JxlEncoderCloseInput(encoder);
    output = g_byte_array_sized_new(64 * 1024);
    for (;;) {
        size_t written = output->len;
        g_byte_array_set_size(output, MAX(written * 2, 64 * 1024));
        uint8_t *next = output->data + written;
        size_t room = output->len - written;
        JxlEncoderStatus result = JxlEncoderProcessOutput(encoder, &next, &room);
        g_byte_array_set_size(output, (guint)(next - output->data));
        if (result == JXL_ENC_SUCCESS) break;
        if (result != JXL_ENC_NEED_MORE_OUTPUT) {
            magpie_set_error(error, error_length, "JPEG XL encoding failed");
            goto done;
        }
    }
    *size = output->len;
    *buffer = g_byte_array_free(output, FALSE);
    output = NULL;
    status = MAGPIE_STATUS_OK;
done:
    if (output) g_byte_array_unref(output);
    JxlEncoderDestroy(encoder);
    return status;
}
