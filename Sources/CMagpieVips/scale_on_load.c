// Scale-on-load before a resize (imgproxy does the same): libjpeg's scaled IDCT and libwebp's
// scaled decode hand over fewer pixels for less work, and the resize's own Lanczos kernel still
// has at least twice its output to work from, so the result stays within resampling noise of
// resizing the whole image.
//
// A HEIF file's embedded thumbnail is not used, though libvips' `thumbnail` does: it is whatever
// the writer made, scaled and encoded apart from the image, and the one libheif's heif-enc writes
// measured 12 levels of 255 from the whole image at its own 320 px and 5 after a resize to 100 px
// (ScaleOnLoadTests): not resampling noise.
#include "magpie_process.h"
#include "shim_internal.h"

#include <math.h>
#include <vips/vips.h>

void magpie_upright_size(const magpie_header *source, int *width, int *height) {
    // libheif has already turned a HEIF upright; other formats' EXIF orientation is applied after
    // the decode.
    int swapped = !magpie_is_heif(source->format) && source->orientation >= 5;
    *width = swapped ? source->height : source->width;
    *height = swapped ? source->width : source->height;
}

int magpie_shrink_factor(const magpie_header *source, double allowed) {
    // libvips sizes a shrunk image by integer division and aborts on a zero side.
    for (int factor = 8; factor > 1; factor /= 2)
        if (allowed >= factor && source->width >= factor && source->height >= factor) return factor;
    return 1;
}

void magpie_fit_scales(magpie_fit fit, double *horizontal, double *vertical) {
    switch (fit) {
    case MAGPIE_FIT_FIT: *horizontal = *vertical = fmin(*horizontal, *vertical); break;
    case MAGPIE_FIT_FILL:
    case MAGPIE_FIT_COVER: *horizontal = *vertical = fmax(*horizontal, *vertical); break;
    case MAGPIE_FIT_EXACT: break;
    }
}

// How many times smaller than the upright `width` x `height` the image may be decoded and still
// leave the resize twice its output on each side.
static double reduction_allowed(const magpie_decode_options *options, int width, int height) {
    double horizontal = (double)options->resize_width / width, vertical = (double)options->resize_height / height;
    magpie_fit_scales(options->resize_fit, &horizontal, &vertical);
    return fmin(1.0 / (2.0 * horizontal), 1.0 / (2.0 * vertical));
}

VipsImage *magpie_open_for_resize(const void *data, size_t length, const magpie_header *source,
                                  const magpie_decode_options *options, VipsAccess access, VipsFailOn fail_on,
                                  int *full_width, int *full_height) {
    if (source->format != MAGPIE_FORMAT_JPEG && source->format != MAGPIE_FORMAT_WEBP) return NULL;
    if (options->resize_width <= 0 || options->resize_height <= 0 || source->width < 1 || source->height < 1) return NULL;
    int width, height;
    magpie_upright_size(source, &width, &height);
    int shrink = magpie_shrink_factor(source, reduction_allowed(options, width, height));
    if (shrink == 1) return NULL;
    VipsImage *image = NULL;
    if (source->format == MAGPIE_FORMAT_JPEG) {
        image = magpie_open_shrunk_jpeg(data, length, shrink, access, fail_on);
    } else if (vips_webpload_buffer((void *)data, length, &image, "scale", 1.0 / shrink, "access", access, "fail_on", fail_on,
                                    NULL)) {
        image = NULL;
    }
    if (!image) {
        // The whole decode that follows reports whatever is wrong with the file.
        vips_error_clear();
        return NULL;
    }
    *full_width = width;
    *full_height = height;
    return image;
}
