#include "jpeg_dc.h"
#include "jpeg_errors.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

// A file that has not sent every DC coefficient by this scan is unusual enough to leave to
// libvips; the cap also bounds the work a hostile file of thousands of tiny scans can cause.
enum { MAXIMUM_SCANS_BEFORE_DC = 16 };

static int dc_is_present(const struct jpeg_decompress_struct *info) {
    for (int component = 0; component < info->num_components; component++)
        if (info->coef_bits[component][0] < 0) return 0;
    return 1;
}

int magpie_jpeg_dc_open(const void *data, size_t length, int orientation, VipsImage **out) {
    *out = NULL;
    struct jpeg_decompress_struct info;
    memset(&info, 0, sizeof info);
    // Any problem hands the file to libvips, whose decode reports it the way every other
    // damaged image is reported; a warning in the scans a thumbnail is made from would be a
    // silently wrong image.
    magpie_jpeg_errors errors;
    magpie_jpeg_report_to(&info, &errors, 1);
    // Everything the jump can skip to the end with lives outside the protected region.
    unsigned char *volatile pixels = NULL;
    JOCTET *volatile profile = NULL;
    unsigned int profile_length = 0;
    volatile int status = MAGPIE_JPEG_DC_NOT_APPLICABLE;
    if (setjmp(errors.jump)) goto done;
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, length);
    jpeg_save_markers(&info, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&info, TRUE);
    // CMYK and YCCK need libvips' profile handling; only YCbCr and grey come here.
    int grey = info.jpeg_color_space == JCS_GRAYSCALE;
    if (!info.progressive_mode || (!grey && info.jpeg_color_space != JCS_YCbCr)) goto done;
    JOCTET *icc = NULL;
    if (jpeg_read_icc_profile(&info, &icc, &profile_length)) profile = icc;

    info.buffered_image = TRUE;
    info.scale_num = 1;
    info.scale_denom = 8;
    info.do_block_smoothing = FALSE;
    info.out_color_space = grey ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&info);
    for (;;) {
        int result = jpeg_consume_input(&info);
        if (result == JPEG_REACHED_EOI || result == JPEG_SUSPENDED) break;
        if (result == JPEG_SCAN_COMPLETED && dc_is_present(&info)) break;
        if (info.input_scan_number > MAXIMUM_SCANS_BEFORE_DC) goto done;
    }
    if (!dc_is_present(&info)) goto done;

    jpeg_start_output(&info, info.input_scan_number);
    size_t row_bytes = (size_t)info.output_width * info.output_components;
    pixels = g_try_malloc(row_bytes * info.output_height);
    if (!pixels) goto done;
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels + row_bytes * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_output(&info);

    VipsImage *image = vips_image_new_from_memory_copy(pixels, row_bytes * info.output_height, (int)info.output_width,
                                                       (int)info.output_height, info.output_components, VIPS_FORMAT_UCHAR);
    if (!image) goto done;
    image->Type = grey ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB;
    if (profile) vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, profile, profile_length);
    vips_image_set_int(image, VIPS_META_ORIENTATION, orientation);
    *out = image;
    status = 0;
done:
    jpeg_destroy_decompress(&info);
    g_free(pixels);
    free(profile);
    return status;
}
