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

// The whole upright image's size. libheif has already turned a HEIF upright; a JPEG's EXIF
// orientation is applied after the decode.
static void upright_size(const magpie_header *source, double *width, double *height) {
    int swapped = source->format != MAGPIE_FORMAT_HEIF && source->orientation >= 5;
    *width = swapped ? source->height : source->width;
    *height = swapped ? source->width : source->height;
}

// The smallest decoded size that leaves the resize twice its output on each side.
static void minimum_size(const magpie_header *source, const magpie_decode_options *options, double *width,
                         double *height) {
    double full_width, full_height;
    upright_size(source, &full_width, &full_height);
    double horizontal = options->resize_width / full_width, vertical = options->resize_height / full_height;
    switch (options->resize_mode) {
    case MAGPIE_RESIZE_FIT: horizontal = vertical = fmin(horizontal, vertical); break;
    case MAGPIE_RESIZE_FILL: horizontal = vertical = fmax(horizontal, vertical); break;
    default: break;
    }
    *width = 2.0 * horizontal * full_width;
    *height = 2.0 * vertical * full_height;
}

// The largest of 8, 4 and 2 that keeps the margin on both sides; 1 for none.
static int shrink_factor(const magpie_header *source, double minimum_width, double minimum_height) {
    double full_width, full_height;
    upright_size(source, &full_width, &full_height);
    double allowed = fmin(full_width / minimum_width, full_height / minimum_height);
    for (int factor = 8; factor > 1; factor /= 2)
        if (allowed >= factor && source->width >= factor && source->height >= factor) return factor;
    return 1;
}

VipsImage *magpie_open_for_resize(const void *data, size_t length, const magpie_header *source,
                                  const magpie_decode_options *options, VipsAccess access, VipsFailOn fail_on,
                                  int *full_width, int *full_height) {
    if (options->resize_width <= 0 || options->resize_height <= 0 || source->width < 1 || source->height < 1) return NULL;
    double minimum_width, minimum_height;
    minimum_size(source, options, &minimum_width, &minimum_height);
    if (source->format != MAGPIE_FORMAT_JPEG && source->format != MAGPIE_FORMAT_WEBP) return NULL;
    int shrink = shrink_factor(source, minimum_width, minimum_height);
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
    double width, height;
    upright_size(source, &width, &height);
    *full_width = (int)width;
    *full_height = (int)height;
    return image;
}
