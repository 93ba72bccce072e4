#include "magpie_encode.h"
#include "shim_internal.h"

#include <pthread.h>
#include <vips/vips.h>

// A still's decode, its crop and its encode as one libvips pipeline: the saver pulls the rows
// through the decoder and the crop, as imgproxy's one save call does, instead of the decode
// rendering a bitmap that the encoder wraps again. Rendering first cost about a millisecond
// more for a 256 px thumbnail of a 3 MP JPEG (issue 38, BENCHMARKS.md).
//
// The encoder chooses its bands from the pixels (no alpha band for an opaque image, one band
// for a grey one), and here it must choose before they exist: from the file, checked by a pass
// the rows go through on their way to the saver. When the rows were not as assumed, the bytes
// are thrown away and the caller encodes the rendered bitmap, so the output never differs.

typedef struct {
    // Cleared by a row that is not, under `lock`: the saver's workers scan rows at once, and
    // libvips' own waits for them (GLib's futexes) order nothing Thread Sanitizer can see, so the
    // caller reads the flags under the same lock.
    pthread_mutex_t lock;
    int opaque;
    int grey;
} seen_pixels;

static int scan_rows(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)a;
    (void)stop;
    VipsRegion *in = sequence;
    seen_pixels *seen = b;
    const VipsRect *rows = &out->valid;
    if (vips_region_prepare(in, rows) || vips_region_region(out, in, rows, rows->left, rows->top)) return -1;
    int opaque = 1, grey = 1;
    for (int y = rows->top; y < rows->top + rows->height && (opaque || grey); y++) {
        const unsigned char *pixel = VIPS_REGION_ADDR(in, rows->left, y);
        for (int x = 0; x < rows->width; x++, pixel += 4) {
            opaque &= pixel[3] == 255;
            grey &= pixel[0] == pixel[1] && pixel[0] == pixel[2];
        }
    }
    if (!opaque || !grey) {
        pthread_mutex_lock(&seen->lock);
        if (!opaque) seen->opaque = 0;
        if (!grey) seen->grey = 0;
        pthread_mutex_unlock(&seen->lock);
    }
    return 0;
}

static int encodes_from_pipeline(magpie_format format) {
    return format == MAGPIE_FORMAT_JPEG || format == MAGPIE_FORMAT_PNG || format == MAGPIE_FORMAT_WEBP ||
           format == MAGPIE_FORMAT_AVIF || format == MAGPIE_FORMAT_TIFF;
}

magpie_status magpie_encode_prepared(magpie_image *image, const magpie_crop_area *crop, const magpie_encode_options *options,
                                     unsigned char **output, size_t *output_length, int *width, int *height) {
    *output = NULL;
    *output_length = 0;
    *width = *height = 0;
    VipsImage *rgba = image->handle;
    if (!rgba || image->frame_plan || image->frames > 1 || image->sample_bytes > 1 || !image->added_alpha ||
        !encodes_from_pipeline(options->format) || options->frames > 1 || options->sample_bytes > 1)
        return MAGPIE_STATUS_UNSUPPORTED;
    // A smart crop reads the pixels to choose its box, and a sequential decode gives them once.
    if (crop && crop->by_gravity && (crop->gravity == MAGPIE_GRAVITY_ATTENTION || crop->gravity == MAGPIE_GRAVITY_ENTROPY))
        return MAGPIE_STATUS_UNSUPPORTED;
    char error[256];
    VipsImage *kept = NULL;
    if (crop) {
        magpie_crop_box box = {0, 0, 0};
        // Only built, not run: the image is still unread if this fails.
        if (!magpie_crop_fits(crop, vips_image_get_width(rgba), vips_image_get_height(rgba), error, sizeof error) ||
            magpie_crop_apply(rgba, 1, crop, &box, &kept)) {
            if (kept) g_object_unref(kept);
            vips_error_clear();
            return MAGPIE_STATUS_UNSUPPORTED;
        }
    } else {
        kept = rgba;
        g_object_ref(kept);
    }
    *width = vips_image_get_width(kept);
    *height = vips_image_get_height(kept);
    // Set under the lock too: the saver's workers are handed the work through those futexes.
    seen_pixels seen;
    pthread_mutex_init(&seen.lock, NULL);
    pthread_mutex_lock(&seen.lock);
    seen.opaque = seen.grey = 1;
    pthread_mutex_unlock(&seen.lock);
    VipsImage *scanned = vips_image_new();
    magpie_status status = MAGPIE_STATUS_FAILED;
    // Made as magpie_wrap_rgba makes the bitmap the encoder otherwise wraps: none of the file's
    // metadata, and a resolution of 1, so no saver writes the file's density or profile.
    vips_image_init_fields(scanned, *width, *height, 4, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE, VIPS_INTERPRETATION_sRGB, 1.0, 1.0);
    if (!vips_image_pipelinev(scanned, VIPS_DEMAND_STYLE_THINSTRIP, NULL) &&
        !vips_image_generate(scanned, vips_start_one, scan_rows, vips_stop_one, kept, &seen)) {
        int grey = image->grey_source;
        status = magpie_encode_decided(scanned, NULL, *width, *height, 1, grey, options, output, output_length, error, sizeof error);
        pthread_mutex_lock(&seen.lock);
        int as_assumed = seen.opaque && seen.grey == grey;
        pthread_mutex_unlock(&seen.lock);
        if (status == MAGPIE_STATUS_OK && !as_assumed) {
            magpie_free_buffer(*output);
            *output = NULL;
            *output_length = 0;
            status = MAGPIE_STATUS_FAILED;
        }
    }
    g_object_unref(scanned);
    g_object_unref(kept);
    pthread_mutex_destroy(&seen.lock);
    // The caller's own decode reports what failed; nothing of this is kept.
    vips_error_clear();
    return status == MAGPIE_STATUS_OK ? status : MAGPIE_STATUS_FAILED;
}
