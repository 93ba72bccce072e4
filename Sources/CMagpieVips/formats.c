#include "bitmap.h"
#include "heif_hevc.h"
#include "jpeg_xl.h"
#include "magpie_formats.h"
#include "png_guard.h"
#include "shim_internal.h"

#include <string.h>
#include <vips/vips.h>

// The formats Magpie decodes: the web's, and TIFF, which image servers are asked for. Anything else is refused even when libvips could read it.
// libvips names its loaders by class; only these are allowed, as Magpie's formats.
static magpie_format format_of_loader(const char *loader) {
    static const struct {
        const char *loader;
        magpie_format format;
    } allowed[] = {
        {"VipsForeignLoadJpegBuffer", MAGPIE_FORMAT_JPEG}, {"VipsForeignLoadPngBuffer", MAGPIE_FORMAT_PNG},
        {"VipsForeignLoadNsgifBuffer", MAGPIE_FORMAT_GIF}, {"VipsForeignLoadWebpBuffer", MAGPIE_FORMAT_WEBP},
        {"VipsForeignLoadHeifBuffer", MAGPIE_FORMAT_AVIF}, {"VipsForeignLoadTiffBuffer", MAGPIE_FORMAT_TIFF},
        {"VipsForeignLoadSvgBuffer", MAGPIE_FORMAT_SVG},
    };
    // A libvips built with libultrahdr (8.18's wheel is) gives an Ultra HDR JPEG to uhdrload
    // ahead of jpegload. It is an ordinary JPEG whose gain map rides in an MPF secondary image
    // that every JPEG reader skips, read as the JPEG it is (find_loader, magpie_open_image).
    if (strcmp(loader, "VipsForeignLoadUhdrBuffer") == 0) return MAGPIE_FORMAT_JPEG;
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (strcmp(loader, allowed[i].loader) == 0) return allowed[i].format;
    return MAGPIE_FORMAT_UNKNOWN;
}

// What a loader Magpie refuses reads, in words, for the error: the buffer loaders of Debian's
// libvips 8.14 and of later builds beside the allowed ones.
static const char *refused_format_name(const char *loader) {
    static const struct {
        const char *prefix;
        const char *name;
    } named[] = {
        {"VipsForeignLoadPdf", "a PDF document"}, {"VipsForeignLoadMagick", "a format only ImageMagick reads"},
        {"VipsForeignLoadJp2k", "a JPEG 2000 image"}, {"VipsForeignLoadRad", "a Radiance HDR image"},
        {"VipsForeignLoadDcraw", "a camera raw file"},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (g_str_has_prefix(loader, named[i].prefix)) return named[i].name;
    return NULL;
}

// libvips 8.14 does not recognise HEIF image sequences (brand "avis", "msf1"...) and hands
// them to ImageMagick, which is blocked; libheif reads their primary image well.
int magpie_is_heif_sequence(const unsigned char *data, size_t length) {
    if (length < 12 || memcmp(data + 4, "ftyp", 4) != 0) return 0;
    static const char *brands[] = {"avis", "msf1", "hevc", "hevx", NULL};
    for (int i = 0; brands[i]; i++)
        if (memcmp(data + 8, brands[i], 4) == 0) return 1;
    return 0;
}

static int find_loader(const void *data, size_t length, magpie_header *header,
                       char *error, size_t error_length) {
    // A JPEG is read by jpegload, whatever libvips would guess: one built with libultrahdr asks
    // uhdrload's test first, which for a JPEG with an MPF segment (Ultra HDR, a stereo MPO...)
    // parses the second image too, 8 ms for a 12 MP photo, at every header read.
    const unsigned char *bytes = data;
    if (length >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) {
        header->format = MAGPIE_FORMAT_JPEG;
        return MAGPIE_STATUS_OK;
    }
    // libvips reads BMP and ICO only through ImageMagick (bitmap.c decodes them), and JPEG XL
    // only when built with libjxl (jpeg_xl.c reads it with the system's).
    header->format = magpie_bmp_is_bmp(data, length)   ? MAGPIE_FORMAT_BMP
                     : magpie_ico_is_ico(data, length) ? MAGPIE_FORMAT_ICO
                     : magpie_jxl_is_jxl(data, length) ? MAGPIE_FORMAT_JXL
                                                       : MAGPIE_FORMAT_UNKNOWN;
    if (header->format != MAGPIE_FORMAT_UNKNOWN) return MAGPIE_STATUS_OK;
    const char *loader = vips_foreign_find_load_buffer(data, length);
    if (magpie_is_heif_sequence(data, length)) {
        vips_error_clear();
        header->format = MAGPIE_FORMAT_AVIF;
    } else if (!loader) {
        vips_error_clear();
        magpie_set_error(error, error_length, "the data is not in an image format Magpie recognises");
        return MAGPIE_STATUS_NOT_AN_IMAGE;
    } else {
        header->format = format_of_loader(loader);
    }
    if (header->format == MAGPIE_FORMAT_UNKNOWN) {
        char text[160];
        const char *name = refused_format_name(loader);
        if (name) g_snprintf(text, sizeof text, "it is %s, which Magpie does not decode", name);
        else g_snprintf(text, sizeof text, "it is in a format Magpie does not decode: libvips would read it with %s", loader);
        magpie_set_error(error, error_length, text);
        return MAGPIE_STATUS_UNSUPPORTED;
    }
    // libvips has one loader for both HEIF codings; the HEVC-coded files are HEIC.
    if (header->format == MAGPIE_FORMAT_AVIF && magpie_heif_is_hevc(data, length)) header->format = MAGPIE_FORMAT_HEIF;
    return MAGPIE_STATUS_OK;
}

static int fill_header(VipsImage *image, magpie_header *header) {
    header->width = vips_image_get_width(image);
    header->height = vips_image_get_height(image);
    header->pages = vips_image_get_n_pages(image);
    header->orientation = vips_image_get_orientation(image);
    if (header->orientation < 1 || header->orientation > 8) header->orientation = 1;
    header->deep = magpie_is_deep(image);
    const char *copyright = NULL;
    if (vips_image_get_typeof(image, "exif-ifd0-Copyright") && !vips_image_get_string(image, "exif-ifd0-Copyright", &copyright) && copyright)
        g_strlcpy(header->copyright, copyright, sizeof header->copyright);
    return 0;
}

// Opens lazily with libvips' loader for the format: only the header is read until pixels are
// asked for. libvips reads the header of every HEIF file, HEVC-coded or not.
static VipsImage *open_with_libvips(const void *data, size_t length, magpie_format format,
                                    VipsAccess access, VipsFailOn fail_on, double vector_dpi) {
    if (format == MAGPIE_FORMAT_SVG && vector_dpi > 0) {
        // libvips' svgload gives librsvg the density (an inch is `dpi` pixels) and also scales
        // the whole drawing by dpi / 72; the scale of 72 / dpi undoes the second, so a size in
        // pixels stays as written and only physical units follow the density, as thumbor's
        // cairosvg draws them.
        VipsImage *image = NULL;
        if (vips_svgload_buffer((void *)data, length, &image, "dpi", vector_dpi, "scale", 72.0 / vector_dpi, "access", access,
                                "fail_on", fail_on, NULL))
            return NULL;
        return image;
    }
    if (magpie_is_heif(format)) {
        VipsImage *image = NULL;
        if (vips_heifload_buffer((void *)data, length, &image, "access", access, "fail_on", fail_on, NULL))
            return NULL;
        return image;
    }
    // The loader is the format's, not libvips' guess again: a JPEG with a gain map would go to
    // uhdrload, which decodes whole (no shrink on load) and attaches the map as metadata.
    if (format == MAGPIE_FORMAT_JPEG) return magpie_open_shrunk_jpeg(data, length, 1, access, fail_on);
    return vips_image_new_from_buffer(data, length, "", "access", access, "fail_on", fail_on, NULL);
}

VipsImage *magpie_open_image(const void *data, size_t length, magpie_format format,
                             VipsAccess access, VipsFailOn fail_on, double vector_dpi) {
    if (magpie_is_bitmap(format)) return magpie_bitmap_open(data, length, format);
    if (format == MAGPIE_FORMAT_JXL) return magpie_jxl_open(data, length);
    if (format == MAGPIE_FORMAT_HEIF) {
        char text[256] = "";
        VipsImage *image = magpie_heif_hevc_open(data, length, text, sizeof text);
        // Where every other loader leaves its error, for the caller to take.
        if (!image) vips_error("heifload", "%s", text);
        return image;
    }
    return open_with_libvips(data, length, format, access, fail_on, vector_dpi);
}

magpie_status magpie_read_header(const void *data, size_t length, double vector_dpi, magpie_header *header,
                            char *error, size_t error_length) {
    memset(header, 0, sizeof *header);
    if (magpie_png_is_png(data, length) && magpie_png_check_chunks(data, length, error, error_length) != MAGPIE_STATUS_OK)
        return MAGPIE_STATUS_FAILED;
    int status = find_loader(data, length, header, error, error_length);
    if (status != MAGPIE_STATUS_OK) return status;
    if (magpie_is_decoded_outside_libvips(header->format)) {
        // One page, decoded upright (a JPEG XL's header gives its upright size).
        header->pages = 1;
        header->orientation = 1;
        return header->format == MAGPIE_FORMAT_JXL
                   ? magpie_jxl_size(data, length, &header->width, &header->height, error, error_length)
                   : magpie_bitmap_size(data, length, header->format, &header->width, &header->height, error, error_length);
    }
    VipsImage *image = open_with_libvips(data, length, header->format, VIPS_ACCESS_RANDOM, VIPS_FAIL_ON_NONE, vector_dpi);
    if (!image) {
        magpie_take_error(error, error_length, "could not read the image header");
        return MAGPIE_STATUS_FAILED;
    }
    fill_header(image, header);
    g_object_unref(image);
    header->unplayable_animation = magpie_is_heif_sequence(data, length) || magpie_png_is_animated(data, length);
    return MAGPIE_STATUS_OK;
}

VipsImage *magpie_open_shrunk_jpeg(const void *data, size_t length, int shrink, VipsAccess access, VipsFailOn fail_on) {
    VipsImage *image = NULL;
    if (vips_jpegload_buffer((void *)data, length, &image, "shrink", shrink, "access", access, "fail_on", fail_on, NULL))
        return NULL;
    return image;
}
