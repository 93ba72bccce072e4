#include "magpie_process.h"
#include "shim_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <vips/vips.h>

// Every step takes a reference-counted image and gives a new one; `replace` drops the old.
static void replace(VipsImage **current, VipsImage *next) {
    g_object_unref(*current);
    *current = next;
}

// Whether a bitmap holds 16 bits a sample (RGB16); otherwise 8.
static int is_sixteen(VipsImage *rgba) { return vips_image_get_format(rgba) == VIPS_FORMAT_USHORT; }

static double max_alpha(int sixteen) { return sixteen ? 65535.0 : 255.0; }

// A colour given 0...255 a component, for a bitmap of `rgba`'s depth: widened for 16 bits a
// sample as libvips widens 8 bits, times 257.
static VipsArrayDouble *colour_for(VipsImage *rgba, const double *colour, int bands) {
    double levels[4];
    for (int band = 0; band < bands; band++) levels[band] = colour[band] * (is_sixteen(rgba) ? 257.0 : 1.0);
    return vips_array_double_new(levels, bands);
}

// Opaque images are worked on as RGB (a quarter less work); transparent ones premultiplied,
// because resampling or blurring straight alpha lets the colour of invisible pixels bleed
// into visible edges as a dark fringe.
static int prepare_for_filtering(VipsImage *rgba, int opaque, VipsImage **out) {
    if (opaque) return vips_extract_band(rgba, out, 0, "n", 3, NULL);
    return vips_premultiply(rgba, out, "max_alpha", max_alpha(is_sixteen(rgba)), NULL);
}

// Back to the bitmap's form: `sixteen` says whether it held 16 bits a sample.
static int finish_filtering(VipsImage *in, int opaque, int sixteen, VipsImage **out) {
    VipsImage *current = in;
    g_object_ref(current);
    VipsImage *next = NULL;
    if (opaque) {
        if (vips_bandjoin_const1(current, &next, max_alpha(sixteen), NULL)) goto fail;
    } else {
        if (vips_unpremultiply(current, &next, "max_alpha", max_alpha(sixteen), NULL)) goto fail;
    }
    replace(&current, next);
    VipsBandFormat format = sixteen ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR;
    if (vips_image_get_format(current) != format) {
        if (vips_cast(current, &next, format, NULL)) goto fail;
        replace(&current, next);
    }
    if (sixteen && vips_image_get_interpretation(current) != VIPS_INTERPRETATION_RGB16) {
        if (vips_copy(current, &next, "interpretation", VIPS_INTERPRETATION_RGB16, NULL)) goto fail;
        replace(&current, next);
    }
    *out = current;
    return 0;
fail:
    g_object_unref(current);
    return -1;
}

static int crop_by_gravity(VipsImage *in, int width, int height, magpie_gravity gravity, magpie_crop_box *box, VipsImage **out) {
    int image_width = vips_image_get_width(in), image_height = vips_image_get_height(in);
    width = width < image_width ? width : image_width;
    height = height < image_height ? height : image_height;
    if (box->known) return vips_extract_area(in, out, box->left, box->top, width, height, NULL);
    if (gravity == MAGPIE_GRAVITY_ATTENTION || gravity == MAGPIE_GRAVITY_ENTROPY) {
        VipsInteresting interesting =
            gravity == MAGPIE_GRAVITY_ATTENTION ? VIPS_INTERESTING_ATTENTION : VIPS_INTERESTING_ENTROPY;
        if (vips_smartcrop(in, out, width, height, "interesting", interesting, NULL)) return -1;
        // libvips' smart crop ends in an extract_area, which records the box it kept as a
        // negative offset.
        *box = (magpie_crop_box){1, VIPS_CLIP(0, -(*out)->Xoffset, image_width - width),
                          VIPS_CLIP(0, -(*out)->Yoffset, image_height - height)};
        return 0;
    }
    int left = (image_width - width) / 2, top = (image_height - height) / 2;
    switch (gravity) {
    case MAGPIE_GRAVITY_NORTH: top = 0; break;
    case MAGPIE_GRAVITY_SOUTH: top = image_height - height; break;
    case MAGPIE_GRAVITY_EAST: left = image_width - width; break;
    case MAGPIE_GRAVITY_WEST: left = 0; break;
    default: break;
    }
    *box = (magpie_crop_box){1, left, top};
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

// Reducing by a large factor: a box average by the integer part that leaves at least a factor
// of three, then Lanczos-3 for the rest (Pillow's `reducing_gap`; libvips' own resize leaves
// two). The box step is a fraction of the cost of a Lanczos kernel wide enough for the whole
// factor, and what it averages away lies far above what the Lanczos step keeps.
static int reduce(VipsImage *in, double target_width, double target_height, VipsImage **out) {
    int width = vips_image_get_width(in), height = vips_image_get_height(in);
    int target_w = (int)fmax(1, round(target_width)), target_h = (int)fmax(1, round(target_height));
    int horizontal = (int)floor((double)width / target_w / 3.0), vertical = (int)floor((double)height / target_h / 3.0);
    horizontal = horizontal < 1 ? 1 : horizontal;
    vertical = vertical < 1 ? 1 : vertical;
    VipsImage *shrunk = in;
    g_object_ref(shrunk);
    if (horizontal > 1 || vertical > 1) {
        VipsImage *next = NULL;
        if (vips_shrink(in, &next, horizontal, vertical, NULL)) {
            g_object_unref(shrunk);
            return -1;
        }
        replace(&shrunk, next);
    }
    double residual_h = (double)vips_image_get_width(shrunk) / target_w;
    double residual_v = (double)vips_image_get_height(shrunk) / target_h;
    int failed = 0;
    if (residual_h == 1.0 && residual_v == 1.0) {
        *out = shrunk;
        return 0;
    }
    failed = vips_reduce(shrunk, out, residual_h, residual_v, "kernel", VIPS_KERNEL_LANCZOS3, NULL);
    g_object_unref(shrunk);
    return failed;
}

// Enlarging along one axis only. libvips' resize filters the axis it leaves at scale 1 as
// well, half a pixel off (a 5x3 stretched to 36x3 turns a row of 200 into 110); an affine
// transform that maps pixel centres onto pixel centres leaves that axis exactly as it was.
static int enlarge_one_axis(VipsImage *in, double hscale, double vscale, VipsImage **out) {
    int width = (int)fmax(1, round(vips_image_get_width(in) * hscale));
    int height = (int)fmax(1, round(vips_image_get_height(in) * vscale));
    VipsInterpolate *bicubic = vips_interpolate_new("bicubic");
    if (!bicubic) return -1;
    // output = scale * (input + 0.5) - 0.5: centres onto centres.
    VipsArrayInt *area = vips_array_int_newv(4, 0, 0, width, height);
    int failed = vips_affine(in, out, hscale, 0, 0, vscale, "interpolate", bicubic, "idx", 0.5, "idy", 0.5, "odx", -0.5, "ody", -0.5,
                             "oarea", area, "extend", VIPS_EXTEND_COPY, NULL);
    vips_area_unref(VIPS_AREA(area));
    g_object_unref(bicubic);
    return failed;
}

static int resize(VipsImage *rgba, int opaque, const magpie_process_options *options, magpie_crop_box *box, VipsImage **out) {
    double actual_width = vips_image_get_width(rgba), actual_height = vips_image_get_height(rgba);
    // The output is sized from the whole image even when the bitmap holds it decoded smaller.
    int reduced = options->full_width > 0 && options->full_height > 0;
    double width = reduced ? options->full_width : actual_width;
    double height = reduced ? options->full_height : actual_height;
    double horizontal = options->width / width, vertical = options->height / height;
    magpie_fit_scales(options->fit, &horizontal, &vertical);
    if (!options->upscale) {
        horizontal = fmin(horizontal, 1.0);
        vertical = fmin(vertical, 1.0);
    }
    if (!reduced && horizontal == 1.0 && vertical == 1.0 && options->fit != MAGPIE_FIT_FILL) {
        g_object_ref(rgba);
        *out = rgba;
        return 0;
    }
    VipsImage *filtered = NULL, *resized = NULL, *finished = NULL;
    if (prepare_for_filtering(rgba, opaque, &filtered)) return -1;
    double hscale = width * horizontal / actual_width, vscale = height * vertical / actual_height;
    int failed = (hscale > 1.0 && vscale == 1.0) || (vscale > 1.0 && hscale == 1.0)
        ? enlarge_one_axis(filtered, hscale, vscale, &resized)
        : horizontal > 1.0 || vertical > 1.0
        ? vips_resize(filtered, &resized, hscale, "vscale", vscale, "kernel", VIPS_KERNEL_LANCZOS3, NULL)
        : reduce(filtered, width * horizontal, height * vertical, &resized);
    g_object_unref(filtered);
    if (failed) return -1;
    failed = finish_filtering(resized, opaque, is_sixteen(rgba), &finished);
    g_object_unref(resized);
    if (failed) return -1;
    if (options->fit != MAGPIE_FIT_FILL) {
        *out = finished;
        return 0;
    }
    failed = crop_by_gravity(finished, options->width, options->height, options->gravity, box, out);
    g_object_unref(finished);
    return failed;
}

static int crop(VipsImage *rgba, const magpie_process_options *options, magpie_crop_box *box, VipsImage **out) {
    if (options->gravity_crop) return crop_by_gravity(rgba, options->width, options->height, options->gravity, box, out);
    return vips_extract_area(rgba, out, options->x, options->y, options->width, options->height, NULL);
}

// A crop's rectangle must lie inside the image; sets `text` and returns 0 when it does not.
static int rectangle_fits(VipsImage *rgba, const magpie_process_options *options, char *text, size_t length) {
    if (options->gravity_crop) return 1;
    int width = vips_image_get_width(rgba), height = vips_image_get_height(rgba);
    if (options->x >= 0 && options->y >= 0 && options->x + options->width <= width && options->y + options->height <= height)
        return 1;
    snprintf(text, length, "the rectangle %dx%d at (%d, %d) is not inside the %dx%d image", options->width, options->height,
             options->x, options->y, width, height);
    return 0;
}

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

static int exact_gaussian_blur(VipsImage *in, double sigma, VipsImage **out);

// The largest sigma blurred at full size. A convolution costs its mask's length per pixel, about
// 3.6 sigma each way: sigma 100 took 133 s on a 40 MP image. A wider blur has nothing finer than
// its sigma to keep, so it is made on a copy shrunk by an average of k x k blocks, blurred there
// by what remains (the block average and the linear enlargement blur too: variances of
// (k^2 - 1) / 12 and k^2 / 6 source pixels), and enlarged back: at most this sigma's cost on a
// k^2-fold smaller image, whatever sigma a URL asks for.
#define MAGPIE_EXACT_BLUR_SIGMA 8.0

static int gaussian_blur(VipsImage *in, double sigma, VipsImage **out) {
    if (sigma <= MAGPIE_EXACT_BLUR_SIGMA) return exact_gaussian_blur(in, sigma, out);
    int width = in->Xsize, height = in->Ysize;
    int factor = (int)ceil(sigma / MAGPIE_EXACT_BLUR_SIGMA);
    if (factor > width) factor = width;
    if (factor > height) factor = height;
    if (factor < 2) return exact_gaussian_blur(in, sigma, out);
    double remaining = sigma * sigma - (factor * factor - 1) / 12.0 - factor * factor / 6.0;
    double small_sigma = remaining > 0 ? sqrt(remaining) / factor : 0;
    VipsImage *small = NULL, *blurred = NULL, *large = NULL;
    int failed = vips_shrink(in, &small, factor, factor, "ceil", TRUE, NULL) ||
                 exact_gaussian_blur(small, small_sigma, &blurred) ||
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

static int exact_gaussian_blur(VipsImage *in, double sigma, VipsImage **out) {
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

static int blur(VipsImage *rgba, int opaque, double sigma, VipsImage **out) {
    VipsImage *filtered = NULL, *blurred = NULL;
    if (prepare_for_filtering(rgba, opaque, &filtered)) return -1;
    int failed = gaussian_blur(filtered, sigma, &blurred);
    g_object_unref(filtered);
    if (failed) return -1;
    failed = finish_filtering(blurred, opaque, is_sixteen(rgba), out);
    g_object_unref(blurred);
    return failed;
}

// Tables for the grey conversion, made once. The first maps each band's sRGB level to its share
// of the luminance (linear light times the band's Rec. 709 weight, in 1/65535 steps, times three
// so that the bands' mean is the sum; the halves make the cast below round). The second maps a
// luminance step back to the sRGB level, in three bands. Two lookups and a mean replace libvips'
// B_W colour-space round trip, four float passes that cost more than a blur on a thumbnail.
static VipsImage *levels_to_luminance, *luminance_to_levels;

static double srgb_to_linear(int level) {
    double v = level / 255.0;
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static unsigned char linear_to_srgb_level(double linear) {
    double v = linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1.0 / 2.4) - 0.055;
    return (unsigned char)VIPS_CLIP(0.0, round(v * 255.0), 255.0);
}

static void make_grey_tables(void) {
    static const double weights[3] = {0.2126, 0.7152, 0.0722};
    float shares[256 * 3];
    for (int level = 0; level < 256; level++)
        for (int band = 0; band < 3; band++)
            shares[level * 3 + band] = (float)(3.0 * (weights[band] * srgb_to_linear(level) * 65535.0 + 0.5 / 3.0));
    unsigned char *levels = g_malloc(65536 * 3);
    for (int step = 0; step < 65536; step++)
        levels[step * 3] = levels[step * 3 + 1] = levels[step * 3 + 2] = linear_to_srgb_level(step / 65535.0);
    levels_to_luminance = vips_image_new_from_memory_copy(shares, sizeof(shares), 256, 1, 3, VIPS_FORMAT_FLOAT);
    luminance_to_levels = vips_image_new_from_memory_copy(levels, 65536 * 3, 65536, 1, 3, VIPS_FORMAT_UCHAR);
    g_free(levels);
}

// Linear-light luminance with Rec. 709 weights, written back as sRGB grey; transparency kept.
static int grayscale(VipsImage *rgba, VipsImage **out) {
    // pthread_once rather than g_once, for the same reason as the masks' lock.
    static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
    pthread_once(&tables_once, make_grey_tables);
    if (!levels_to_luminance || !luminance_to_levels) {
        vips_error("magpie", "could not make the grey tables");
        return -1;
    }
    VipsImage *rgb = NULL, *alpha = NULL, *shares = NULL, *luminance = NULL, *steps = NULL, *grey = NULL;
    int failed = vips_extract_band(rgba, &rgb, 0, "n", 3, NULL) || vips_extract_band(rgba, &alpha, 3, NULL) ||
                 vips_maplut(rgb, &shares, levels_to_luminance, NULL) || vips_bandmean(shares, &luminance, NULL) ||
                 vips_cast_ushort(luminance, &steps, NULL) || vips_maplut(steps, &grey, luminance_to_levels, NULL);
    if (!failed) {
        VipsImage *bands[2] = {grey, alpha};
        failed = vips_bandjoin(bands, out, 2, NULL);
    }
    VipsImage *made[] = {rgb, alpha, shares, luminance, steps, grey};
    for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
        if (made[i]) g_object_unref(made[i]);
    return failed ? -1 : 0;
}

// libvips' sharpen works on lightness alone (in LabS) and gives back sRGB; transparency is kept
// as it was.
static int sharpen(VipsImage *rgba, double sigma, VipsImage **out) {
    VipsImage *rgb = NULL, *alpha = NULL, *sharp = NULL, *bytes = NULL;
    int failed = vips_extract_band(rgba, &rgb, 0, "n", 3, NULL) || vips_extract_band(rgba, &alpha, 3, NULL) ||
                 vips_sharpen(rgb, &sharp, "sigma", sigma, NULL) || vips_cast_uchar(sharp, &bytes, NULL);
    if (!failed) {
        VipsImage *bands[2] = {bytes, alpha};
        failed = vips_bandjoin(bands, out, 2, NULL);
    }
    if (rgb) g_object_unref(rgb);
    if (alpha) g_object_unref(alpha);
    if (sharp) g_object_unref(sharp);
    if (bytes) g_object_unref(bytes);
    return failed ? -1 : 0;
}

// The classic unsharp mask, in the bands as they are (premultiplied with transparency): one
// blur and three arithmetic passes, no colour-space round trip.
static int unsharp(VipsImage *rgba, int opaque, double sigma, double amount, VipsImage **out) {
    VipsImage *filtered = NULL, *blurred = NULL, *difference = NULL, *scaled = NULL, *sum = NULL;
    int failed = prepare_for_filtering(rgba, opaque, &filtered) || exact_gaussian_blur(filtered, sigma, &blurred) ||
                 vips_subtract(filtered, blurred, &difference, NULL) || vips_linear1(difference, &scaled, amount, 0, NULL) ||
                 vips_add(filtered, scaled, &sum, NULL) || finish_filtering(sum, opaque, is_sixteen(rgba), out);
    VipsImage *made[] = {filtered, blurred, difference, scaled, sum};
    for (int i = 0; i < 5; i++) if (made[i]) g_object_unref(made[i]);
    return failed ? -1 : 0;
}

// The image on a canvas of the background colour.
static int embed(VipsImage *rgba, const magpie_process_options *options, VipsImage **out) {
    VipsArrayDouble *background = colour_for(rgba, options->background, 4);
    int failed = vips_embed(rgba, out, options->x, options->y, options->width, options->height, "extend",
                            VIPS_EXTEND_BACKGROUND, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return failed;
}

static int rotate(VipsImage *rgba, int angle, VipsImage **out) {
    VipsAngle turn = angle == 90 ? VIPS_ANGLE_D90 : angle == 180 ? VIPS_ANGLE_D180 : VIPS_ANGLE_D270;
    return vips_rot(rgba, out, turn, NULL);
}

static int flip(VipsImage *rgba, const magpie_process_options *options, VipsImage **out) {
    VipsImage *current = rgba, *next = NULL;
    g_object_ref(current);
    if (options->flip_horizontal) {
        if (vips_flip(current, &next, VIPS_DIRECTION_HORIZONTAL, NULL)) goto fail;
        replace(&current, next);
    }
    if (options->flip_vertical) {
        if (vips_flip(current, &next, VIPS_DIRECTION_VERTICAL, NULL)) goto fail;
        replace(&current, next);
    }
    *out = current;
    return 0;
fail:
    g_object_unref(current);
    return -1;
}

// Each block becomes its average. The image is mirrored out to whole blocks first, so the
// blocks on the right and bottom edges average only what is near them, and cut back after.
static int pixelate(VipsImage *rgba, int opaque, int size, VipsImage **out) {
    int width = vips_image_get_width(rgba), height = vips_image_get_height(rgba);
    int longer = width > height ? width : height;
    if (size > longer) size = longer;
    int padded_width = (width + size - 1) / size * size, padded_height = (height + size - 1) / size * size;
    VipsImage *current = NULL, *next = NULL;
    if (prepare_for_filtering(rgba, opaque, &current)) return -1;
    if (padded_width > width || padded_height > height) {
        if (vips_embed(current, &next, 0, 0, padded_width, padded_height, "extend", VIPS_EXTEND_MIRROR, NULL)) goto fail;
        replace(&current, next);
    }
    if (vips_shrink(current, &next, size, size, NULL)) goto fail;
    replace(&current, next);
    if (vips_zoom(current, &next, size, size, NULL)) goto fail;
    replace(&current, next);
    if (padded_width > width || padded_height > height) {
        if (vips_extract_area(current, &next, 0, 0, width, height, NULL)) goto fail;
        replace(&current, next);
    }
    int failed = finish_filtering(current, opaque, is_sixteen(rgba), out);
    g_object_unref(current);
    return failed;
fail:
    g_object_unref(current);
    return -1;
}

// Onto an opaque colour.
static int flatten(VipsImage *rgba, const double *colour, VipsImage **out) {
    int sixteen = is_sixteen(rgba);
    VipsArrayDouble *background = colour_for(rgba, colour, 3);
    VipsImage *flat = NULL, *bytes = NULL;
    int failed = vips_flatten(rgba, &flat, "background", background, "max_alpha", max_alpha(sixteen), NULL) ||
                 vips_cast(flat, &bytes, sixteen ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR, NULL) ||
                 vips_bandjoin_const1(bytes, out, max_alpha(sixteen), NULL);
    vips_area_unref(VIPS_AREA(background));
    if (flat) g_object_unref(flat);
    if (bytes) g_object_unref(bytes);
    return failed ? -1 : 0;
}

// One matrix and one linear step on the colour bands: saturation mixes each pixel with its grey
// (rows of luma weights), contrast scales around mid-grey, brightness adds; alpha is kept.
static int adjust(VipsImage *rgba, const magpie_process_options *options, VipsImage **out) {
    const double luma[3] = {0.2126, 0.7152, 0.0722};
    double saturation = options->saturation, contrast = options->contrast;
    VipsImage *matrix = vips_image_new_matrix(3, 3);
    if (!matrix) return -1;
    for (int row = 0; row < 3; row++)
        for (int column = 0; column < 3; column++)
            *VIPS_MATRIX(matrix, column, row) = (1 - saturation) * luma[column] + (row == column ? saturation : 0);
    VipsImage *rgb = NULL, *alpha = NULL, *mixed = NULL, *scaled = NULL, *bytes = NULL;
    double a[3] = {contrast, contrast, contrast};
    double b[3];
    for (int band = 0; band < 3; band++) b[band] = 128 - 128 * contrast + options->brightness;
    int failed = vips_extract_band(rgba, &rgb, 0, "n", 3, NULL) || vips_extract_band(rgba, &alpha, 3, NULL) ||
                 vips_recomb(rgb, &mixed, matrix, NULL) || vips_linear(mixed, &scaled, a, b, 3, NULL) ||
                 vips_cast_uchar(scaled, &bytes, NULL);
    if (!failed) {
        VipsImage *bands[2] = {bytes, alpha};
        failed = vips_bandjoin(bands, out, 2, NULL);
    }
    g_object_unref(matrix);
    if (rgb) g_object_unref(rgb);
    if (alpha) g_object_unref(alpha);
    if (mixed) g_object_unref(mixed);
    if (scaled) g_object_unref(scaled);
    if (bytes) g_object_unref(bytes);
    return failed ? -1 : 0;
}

static int colour_in_range(const double *colour) {
    for (int band = 0; band < 4; band++)
        if (!(colour[band] >= 0 && colour[band] <= 255)) return 0;
    return 1;
}

magpie_status magpie_run_operation(VipsImage *rgba, int opaque, const magpie_process_options *options, magpie_crop_box *box,
                                   VipsImage **out, char *error, size_t error_length) {
    int failed;
    switch (options->operation) {
    case MAGPIE_OPERATION_RESIZE:
        if (options->width <= 0 || options->height <= 0) {
            magpie_set_error(error, error_length, "the box must be at least 1x1");
            return MAGPIE_STATUS_FAILED;
        }
        failed = resize(rgba, opaque, options, box, out);
        break;
    case MAGPIE_OPERATION_CROP:
        if (options->width <= 0 || options->height <= 0) {
            magpie_set_error(error, error_length, "the area must be at least 1x1");
            return MAGPIE_STATUS_FAILED;
        }
        char text[160];
        if (!rectangle_fits(rgba, options, text, sizeof text)) {
            magpie_set_error(error, error_length, text);
            return MAGPIE_STATUS_FAILED;
        }
        failed = crop(rgba, options, box, out);
        break;
    case MAGPIE_OPERATION_BLUR:
        if (!(options->sigma > 0 && options->sigma <= 1000)) {
            magpie_set_error(error, error_length, "sigma must be above 0 and at most 1000");
            return MAGPIE_STATUS_FAILED;
        }
        failed = blur(rgba, opaque, options->sigma, out);
        break;
    case MAGPIE_OPERATION_GRAYSCALE:
        failed = grayscale(rgba, out);
        break;
    case MAGPIE_OPERATION_SHARPEN:
        if (!(options->sigma > 0 && options->sigma <= 10)) {
            magpie_set_error(error, error_length, "sigma must be above 0 and at most 10");
            return MAGPIE_STATUS_FAILED;
        }
        failed = sharpen(rgba, options->sigma, out);
        break;
    case MAGPIE_OPERATION_UNSHARP:
        if (!(options->sigma > 0 && options->sigma <= 10) || !(options->amount >= 0 && options->amount <= 10)) {
            magpie_set_error(error, error_length, "sigma must be above 0 and at most 10, amount 0 to 10");
            return MAGPIE_STATUS_FAILED;
        }
        failed = unsharp(rgba, opaque, options->sigma, options->amount, out);
        break;
    case MAGPIE_OPERATION_LINEAR:
    case MAGPIE_OPERATION_LOOKUP:
    case MAGPIE_OPERATION_EQUALIZE:
    case MAGPIE_OPERATION_NOISE:
    case MAGPIE_OPERATION_CONVOLVE:
    case MAGPIE_OPERATION_SATURATE:
        if (options->operation == MAGPIE_OPERATION_CONVOLVE &&
            !(options->matrix && options->matrix_columns >= 1 && options->matrix_columns <= 25 && options->matrix_rows >= 1 &&
              options->matrix_rows <= 25)) {
            magpie_set_error(error, error_length, "a convolution matrix is 1x1 to 25x25");
            return MAGPIE_STATUS_FAILED;
        }
        if (options->operation == MAGPIE_OPERATION_LOOKUP && !options->lookup) {
            magpie_set_error(error, error_length, "no lookup table");
            return MAGPIE_STATUS_FAILED;
        }
        failed = magpie_tone(rgba, opaque, options, out);
        break;
    case MAGPIE_OPERATION_EMBED: {
        int width = vips_image_get_width(rgba), height = vips_image_get_height(rgba);
        if (options->width < width || options->height < height || options->x < 0 || options->y < 0 ||
            options->x > options->width - width || options->y > options->height - height) {
            magpie_set_error(error, error_length, "the canvas must hold the whole image");
            return MAGPIE_STATUS_FAILED;
        }
        if (!colour_in_range(options->background)) {
            magpie_set_error(error, error_length, "colour components are 0 to 255");
            return MAGPIE_STATUS_FAILED;
        }
        failed = embed(rgba, options, out);
        break;
    }
    case MAGPIE_OPERATION_ROTATE:
        if (options->angle != 90 && options->angle != 180 && options->angle != 270) {
            magpie_set_error(error, error_length, "the angle must be 90, 180 or 270");
            return MAGPIE_STATUS_FAILED;
        }
        failed = rotate(rgba, options->angle, out);
        break;
    case MAGPIE_OPERATION_FLIP:
        failed = flip(rgba, options, out);
        break;
    case MAGPIE_OPERATION_PIXELATE:
        if (options->width < 2) {
            magpie_set_error(error, error_length, "blocks must be at least 2 pixels");
            return MAGPIE_STATUS_FAILED;
        }
        failed = pixelate(rgba, opaque, options->width, out);
        break;
    case MAGPIE_OPERATION_FLATTEN:
        if (!colour_in_range(options->background)) {
            magpie_set_error(error, error_length, "colour components are 0 to 255");
            return MAGPIE_STATUS_FAILED;
        }
        failed = flatten(rgba, options->background, out);
        break;
    case MAGPIE_OPERATION_ADJUST:
        if (!(options->brightness >= -255 && options->brightness <= 255 && options->contrast >= 0 && options->contrast <= 10 &&
              options->saturation >= 0 && options->saturation <= 10)) {
            magpie_set_error(error, error_length, "brightness is -255 to 255, contrast and saturation 0 to 10");
            return MAGPIE_STATUS_FAILED;
        }
        failed = adjust(rgba, options, out);
        break;
    default:
        magpie_set_error(error, error_length, "unknown operation");
        return MAGPIE_STATUS_FAILED;
    }
    if (!failed) return MAGPIE_STATUS_OK;
    magpie_take_error(error, error_length, "processing failed");
    return MAGPIE_STATUS_FAILED;
}
