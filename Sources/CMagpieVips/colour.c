#include "shim_internal.h"

#include <stdint.h>
#include <string.h>
#include <vips/vips.h>

// Whether an embedded profile names itself sRGB ("sRGB IEC61966-2.1", "sRGB built-in"...), in
// a v2 `desc` or a v4 `mluc` description: its pixels are sRGB already, and converting them to
// libvips' own sRGB would cost a pass and move levels by one here and there.
static int profile_is_srgb(VipsImage *image) {
    const unsigned char *icc = NULL;
    size_t length = 0;
    if (vips_image_get_blob(image, VIPS_META_ICC_NAME, (const void **)&icc, &length) || length < 132) return 0;
    uint32_t count = (uint32_t)icc[128] << 24 | icc[129] << 16 | icc[130] << 8 | icc[131];
    for (uint32_t tag = 0; tag < count && 132 + 12 * (size_t)tag + 12 <= length; tag++) {
        const unsigned char *entry = icc + 132 + 12 * (size_t)tag;
        if (memcmp(entry, "desc", 4) != 0) continue;
        size_t offset = (size_t)entry[4] << 24 | entry[5] << 16 | entry[6] << 8 | entry[7];
        if (offset + 28 > length) return 0;
        const unsigned char *description = icc + offset;
        if (memcmp(description, "desc", 4) == 0) return memcmp(description + 12, "sRGB", 4) == 0;
        if (memcmp(description, "mluc", 4) == 0) {
            // The first record's text, UTF-16 big-endian.
            size_t bytes = (size_t)description[20] << 24 | description[21] << 16 | description[22] << 8 | description[23];
            size_t text = (size_t)description[24] << 24 | description[25] << 16 | description[26] << 8 | description[27];
            if (bytes < 8 || offset + text + 8 > length) return 0;
            const unsigned char *utf16 = description + text;
            return utf16[1] == 's' && utf16[3] == 'R' && utf16[5] == 'G' && utf16[7] == 'B' && !utf16[0] && !utf16[2];
        }
        return 0;
    }
    return 0;
}

// Grey without an interpretation libvips can convert (one band, or grey and alpha): the grey
// band replicated into three, the alpha kept.
static int grey_to_rgb(VipsImage *in, int bands, VipsImage **out) {
    VipsImage *grey = NULL, *rgb = NULL;
    if (vips_extract_band(in, &grey, 0, NULL)) return -1;
    VipsImage *triple[3] = {grey, grey, grey};
    int failed = vips_bandjoin(triple, &rgb, 3, NULL);
    g_object_unref(grey);
    if (failed) return -1;
    if (bands == 1) {
        *out = rgb;
        return 0;
    }
    VipsImage *alpha = NULL;
    failed = vips_extract_band(in, &alpha, 1, NULL);
    if (!failed) {
        VipsImage *pair[2] = {rgb, alpha};
        failed = vips_bandjoin(pair, out, 2, NULL);
        g_object_unref(alpha);
    }
    g_object_unref(rgb);
    return failed;
}

// Brings any decoded image to sRGB with an alpha band: 8 bits a sample, or with `sixteen`, 16
// bits a sample (RGB16, the range 0...65535).
static magpie_status to_rgba(VipsImage *in, int sixteen, VipsImage **out, char *error, size_t error_length) {
    const VipsInterpretation target = sixteen ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB;
    const VipsBandFormat format = sixteen ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR;
    VipsImage *current = in;
    g_object_ref(current);
    VipsImage *next = NULL;

    if (vips_image_get_interpretation(current) != VIPS_INTERPRETATION_CMYK && vips_image_get_typeof(current, VIPS_META_ICC_NAME) &&
        !profile_is_srgb(current)) {
        // An embedded profile says what the numbers mean (Display P3 from a phone, Adobe RGB,
        // a grey gamma): Magpie's pixels are sRGB, so they are converted. A profile that does
        // not fit the image, or does not parse, is ignored, as browsers ignore it.
        if (vips_icc_transform(current, &next, "srgb", "embedded", TRUE, "depth", sixteen ? 16 : 8, NULL)) {
            vips_error_clear();
        } else {
            g_object_unref(current);
            current = next;
        }
    }
    if (vips_image_get_interpretation(current) == VIPS_INTERPRETATION_CMYK) {
        // A CMYK JPEG without a profile still needs one to become RGB; libvips ships a
        // generic CMYK profile for that.
        if (vips_icc_import(current, &next, "input_profile", "cmyk", "embedded", TRUE, NULL))
            goto fail;
        g_object_unref(current);
        current = next;
    }
    if (vips_image_get_interpretation(current) != target || vips_image_get_format(current) != format) {
        if (vips_colourspace_issupported(current)) {
            if (vips_colourspace(current, &next, target, NULL)) goto fail;
            g_object_unref(current);
            current = next;
        }
    }
    if (vips_image_get_format(current) != format) {
        if (vips_cast(current, &next, format, NULL)) goto fail;
        g_object_unref(current);
        current = next;
    }
    int bands = vips_image_get_bands(current);
    if (bands == 1 || bands == 2) {
        if (grey_to_rgb(current, bands, &next)) goto fail;
        g_object_unref(current);
        current = next;
        bands = vips_image_get_bands(current);
    }
    if (bands == 3) {
        if (vips_bandjoin_const1(current, &next, sixteen ? 65535.0 : 255.0, NULL)) goto fail;
        g_object_unref(current);
        current = next;
    } else if (bands > 4) {
        if (vips_extract_band(current, &next, 0, "n", 4, NULL)) goto fail;
        g_object_unref(current);
        current = next;
    }
    if (sixteen && vips_image_get_interpretation(current) != VIPS_INTERPRETATION_RGB16) {
        if (vips_copy(current, &next, "interpretation", VIPS_INTERPRETATION_RGB16, NULL)) goto fail;
        g_object_unref(current);
        current = next;
    }
    *out = current;
    return MAGPIE_STATUS_OK;
fail:
    g_object_unref(current);
    magpie_take_error(error, error_length, "converting to RGBA failed");
    return MAGPIE_STATUS_FAILED;
}

magpie_status magpie_to_rgba8(VipsImage *in, VipsImage **out, char *error, size_t error_length) {
    return to_rgba(in, 0, out, error, error_length);
}

int magpie_is_deep(VipsImage *image) {
    VipsBandFormat format = vips_image_get_format(image);
    return format != VIPS_FORMAT_UCHAR && format != VIPS_FORMAT_CHAR;
}

magpie_status magpie_to_rgba_keeping_depth(VipsImage *in, VipsImage **out, int *sample_bytes, char *error, size_t error_length) {
    int deep = magpie_is_deep(in);
    *sample_bytes = deep ? 2 : 1;
    return to_rgba(in, deep, out, error, error_length);
}

int magpie_is_opaque_samples(const unsigned char *pixels, size_t count, int sample_bytes) {
    if (sample_bytes != 2) return magpie_is_opaque(pixels, count);
    const uint16_t *samples = (const uint16_t *)pixels;
    for (size_t i = 3; i < count * 4; i += 4) {
        if (samples[i] != 65535) return 0;
    }
    return 1;
}

int magpie_is_opaque(const unsigned char *pixels, size_t count) {
    for (size_t i = 3; i < count * 4; i += 4) {
        if (pixels[i] != 255) return 0;
    }
    return 1;
}
