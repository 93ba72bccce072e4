// Gaussian blurs: libvips' two passes with masks made once per sigma, and wide blurs made on a
// shrunk copy.
#include "shim_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <vips/vips.h>

// The two passes of libvips' Gaussian blur, with both masks made once per sigma. On a thumbnail
// most of `vips_gaussblur`'s time was libvips checking and rotating its mask inside every call:
// each check renders the mask through the thread pool, five times a blur, whatever the image's size.
//
// The masks are libvips' own Gaussian (`vips_gaussmat`, its default minimum amplitude), rounded
// to integers that sum to a power of two. libvips' integer convolution holds each coefficient as
// an 8-bit mantissa with one shared exponent, and the integer mask `vips_gaussblur` makes does not
// sum exactly in that form: flat areas came out up to five levels lighter or darker, by sigma
// (and an unsharp mask doubled the error). With the sum the convolution's own unit, a flat area
// stays exactly as it was.
#define CACHED_MASKS 16

typedef struct {
    double sigma;
    VipsImage *across, *down;
} gaussian_masks;

static gaussian_masks cached_masks[CACHED_MASKS];
static int cached_mask_count;
// pthread's rather than GLib's lock: Thread Sanitizer sees its ordering (GLib here is inside the
// uninstrumented libvips).
static pthread_mutex_t cached_masks_lock = PTHREAD_MUTEX_INITIALIZER;

// Rounds `weights` (summing to 1, symmetric) to integers summing to `total`, keeping the symmetry:
// the rounding error goes, a unit at a time, to the pairs that lost most by rounding, and an odd
// unit to the middle.
static void round_to_total(const double *weights, int count, int total, double *rounded) {
    int sum = 0;
    for (int i = 0; i < count; i++) {
        rounded[i] = rint(weights[i] * total);
        sum += (int)rounded[i];
    }
    int middle = count / 2;
    while (sum != total) {
        int step = sum < total ? 1 : -1;
        // A single unit, or a mask with no pairs, goes to the middle.
        if (abs(total - sum) == 1 || middle == 0) {
            rounded[middle] += step;
            sum += step;
            continue;
        }
        int best = 0;
        for (int i = 1; i < middle; i++)
            if ((weights[i] * total - rounded[i]) * step > (weights[best] * total - rounded[best]) * step) best = i;
        rounded[best] += step;
        rounded[count - 1 - best] += step;
        sum += 2 * step;
    }
}

static int make_gaussian_masks(double sigma, gaussian_masks *masks) {
    masks->sigma = sigma;
    masks->across = masks->down = NULL;
    VipsImage *made = NULL, *values = NULL;
    if (vips_gaussmat(&made, sigma, 0.2, "separable", TRUE, "precision", VIPS_PRECISION_FLOAT, NULL) ||
        !(values = vips_image_copy_memory(made))) {
        if (made) g_object_unref(made);
        return -1;
    }
    int count = values->Xsize;
    double *weights = g_new(double, count), *rounded = g_new(double, count);
    double sum = 0, largest = 0;
    for (int i = 0; i < count; i++) sum += *VIPS_MATRIX(values, i, 0);
    for (int i = 0; i < count; i++) {
        weights[i] = *VIPS_MATRIX(values, i, 0) / sum;
        if (weights[i] > largest) largest = weights[i];
    }
    // The exponent libvips' integer convolution gives a mask whose largest weight is `largest`:
    // coefficients are then whole multiples of 1 / 2^(7 - shift).
    int shift = (int)ceil(log2(largest) + 1);
    int total = 1 << (7 - shift);
    round_to_total(weights, count, total, rounded);
    masks->across = vips_image_new_matrix_from_array(count, 1, rounded, count);
    masks->down = vips_image_new_matrix_from_array(1, count, rounded, count);
    for (VipsImage **mask = &masks->across; mask <= &masks->down; mask++) {
        if (*mask) {
            vips_image_set_double(*mask, "scale", total);
            vips_image_set_double(*mask, "offset", 0);
        }
    }
    g_free(weights);
    g_free(rounded);
    g_object_unref(made);
    g_object_unref(values);
    if (masks->across && masks->down) return 0;
    if (masks->across) g_object_unref(masks->across);
    if (masks->down) g_object_unref(masks->down);
    masks->across = masks->down = NULL;
    return -1;
}

// Referenced masks for `sigma` if the cache holds them; the caller holds the lock.
static int cached_gaussian_masks(double sigma, gaussian_masks *masks) {
    for (int i = 0; i < cached_mask_count; i++) {
        if (cached_masks[i].sigma == sigma) {
            *masks = cached_masks[i];
            g_object_ref(masks->across);
            g_object_ref(masks->down);
            return 1;
        }
    }
    return 0;
}

// Gives referenced masks for `sigma`, from the cache when it holds them.
static int gaussian_masks_for(double sigma, gaussian_masks *masks) {
    pthread_mutex_lock(&cached_masks_lock);
    int cached = cached_gaussian_masks(sigma, masks);
    pthread_mutex_unlock(&cached_masks_lock);
    if (cached) return 0;
    // Made outside the lock: making them runs libvips' thread pool.
    if (make_gaussian_masks(sigma, masks)) return -1;
    pthread_mutex_lock(&cached_masks_lock);
    gaussian_masks raced;
    if (cached_gaussian_masks(sigma, &raced)) {
        // Another call made them meanwhile; one copy in the cache is enough.
        g_object_unref(raced.across);
        g_object_unref(raced.down);
    } else if (cached_mask_count < CACHED_MASKS) {
        // Sigmas come from URLs; beyond the first few the masks are made for each call.
        g_object_ref(masks->across);
        g_object_ref(masks->down);
        cached_masks[cached_mask_count++] = *masks;
    }
    pthread_mutex_unlock(&cached_masks_lock);
    return 0;
}

int magpie_exact_gaussian_blur(VipsImage *in, double sigma, VipsImage **out) {
    // Where vips_gaussmat would make a one-pixel mask.
    if (sigma < 0.2) return vips_copy(in, out, NULL);
    gaussian_masks masks;
    if (gaussian_masks_for(sigma, &masks)) return -1;
    VipsImage *across = NULL;
    int failed = vips_convi(in, &across, masks.across, NULL) || vips_convi(across, out, masks.down, NULL);
    if (across) g_object_unref(across);
    g_object_unref(masks.across);
    g_object_unref(masks.down);
    return failed ? -1 : 0;
}


// The largest sigma blurred at full size. A convolution costs its mask's length per pixel, about
// 3.6 sigma each way: sigma 100 took 133 s on a 40 MP image. A wider blur has nothing finer than
// its sigma to keep, so it is made on a copy shrunk by an average of k x k blocks, blurred there
// by what remains (the block average and the linear enlargement blur too: variances of
// (k^2 - 1) / 12 and k^2 / 6 source pixels), and enlarged back: at most this sigma's cost on a
// k^2-fold smaller image, whatever sigma a URL asks for.
#define MAGPIE_EXACT_BLUR_SIGMA 8.0

static int gaussian_blur(VipsImage *in, double sigma, VipsImage **out) {
    if (sigma <= MAGPIE_EXACT_BLUR_SIGMA) return magpie_exact_gaussian_blur(in, sigma, out);
    int width = in->Xsize, height = in->Ysize;
    int factor = (int)ceil(sigma / MAGPIE_EXACT_BLUR_SIGMA);
    if (factor > width) factor = width;
    if (factor > height) factor = height;
    if (factor < 2) return magpie_exact_gaussian_blur(in, sigma, out);
    double remaining = sigma * sigma - (factor * factor - 1) / 12.0 - factor * factor / 6.0;
    double small_sigma = remaining > 0 ? sqrt(remaining) / factor : 0;
    VipsImage *small = NULL, *blurred = NULL, *large = NULL;
    int failed = vips_shrink(in, &small, factor, factor, "ceil", TRUE, NULL) ||
                 magpie_exact_gaussian_blur(small, small_sigma, &blurred) ||
                 vips_resize(blurred, &large, (double)width / blurred->Xsize, "vscale", (double)height / blurred->Ysize, "kernel",
                             VIPS_KERNEL_LINEAR, NULL);
    if (!failed && (large->Xsize != width || large->Ysize != height)) {
        // Rounding may leave the enlargement a pixel short or long: the edge pixels repeat.
        VipsImage *fitted = NULL;
        failed = vips_embed(large, &fitted, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL);
        g_object_unref(large);
        large = fitted;
    }
    if (small) g_object_unref(small);
    if (blurred) g_object_unref(blurred);
    if (failed) {
        if (large) g_object_unref(large);
        return -1;
    }
    *out = large;
    return 0;
}

static int apply_blur(VipsImage *rgba, int opaque, const void *arguments, magpie_crop_box *box, VipsImage **out) {
    (void)box;
    const double *sigma = arguments;
    VipsImage *filtered = NULL, *blurred = NULL;
    if (magpie_prepare_for_filtering(rgba, opaque, &filtered)) return -1;
    int failed = gaussian_blur(filtered, *sigma, &blurred);
    g_object_unref(filtered);
    if (failed) return -1;
    failed = magpie_finish_filtering(blurred, opaque, magpie_is_sixteen(rgba), out);
    g_object_unref(blurred);
    return failed;
}

magpie_status magpie_blur(const magpie_bitmap *bitmap, double sigma, magpie_image *result, char *error, size_t error_length) {
    if (!(sigma > 0 && sigma <= 1000)) return magpie_refuse(error, error_length, "sigma must be above 0 and at most 1000");
    magpie_operation operation = {apply_blur, &sigma, sizeof sigma, 0};
    return magpie_process_bitmap(bitmap, &operation, result, error, error_length);
}
