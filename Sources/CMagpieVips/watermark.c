#include "magpie_process.h"
#include "shim_internal.h"

#include <math.h>
#include <vips/vips.h>

// The mark made ready for one frame: its alpha scaled by the opacity, then either repeated
// from the frame's centre outwards to cover it, or placed on a transparent canvas of the
// frame's size (which cuts whatever reaches past the edges).
static int magpie_mark_layer(VipsImage *mark, int width, int height, const magpie_watermark_options *options,
                             VipsObject *scope, VipsImage **layer) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 6);
    if (options->opacity < 1) {
        double scale[4] = {1, 1, 1, options->opacity < 0 ? 0 : options->opacity}, offset[4] = {0, 0, 0, 0};
        if (vips_linear(mark, &t[0], scale, offset, 4, "uchar", TRUE, NULL)) return -1;
        mark = t[0];
    }
    if (options->tile) {
        // An odd count of tiles each way, so one tile sits on the frame's centre.
        int across = (int)ceil((double)width / mark->Xsize), down = (int)ceil((double)height / mark->Ysize);
        across += across % 2 == 0;
        down += down % 2 == 0;
        if (vips_replicate(mark, &t[1], across, down, NULL)) return -1;
        return vips_extract_area(t[1], layer, (t[1]->Xsize - width) / 2, (t[1]->Ysize - height) / 2, width, height, NULL);
    }
    if (options->column_count == 1 && options->row_count == 1) {
        return vips_embed(mark, layer, options->lefts[0], options->tops[0], width, height, "extend", VIPS_EXTEND_BLACK, NULL);
    }
    // A grid: every mark composited over a transparent canvas in one operation.
    int count = options->column_count * options->row_count;
    VipsImage **images = g_new(VipsImage *, count + 1);
    int *modes = g_new(int, count), *xs = g_new(int, count), *ys = g_new(int, count);
    int failed = vips_black(&t[2], width, height, "bands", 4, NULL) || vips_copy(t[2], &t[3], "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    images[0] = t[3];
    for (int i = 0; i < count; i++) {
        images[i + 1] = mark;
        modes[i] = VIPS_BLEND_MODE_OVER;
        xs[i] = options->lefts[i % options->column_count];
        ys[i] = options->tops[i / options->column_count];
    }
    if (!failed) {
        VipsArrayInt *x = vips_array_int_new(xs, count), *y = vips_array_int_new(ys, count);
        failed = vips_composite(images, &t[4], count + 1, modes, "x", x, "y", y, "compositing_space", VIPS_INTERPRETATION_sRGB, NULL) ||
                 vips_cast_uchar(t[4], &t[5], NULL);
        vips_area_unref(VIPS_AREA(x));
        vips_area_unref(VIPS_AREA(y));
    }
    g_free(images);
    g_free(modes);
    g_free(xs);
    g_free(ys);
    if (failed) return -1;
    *layer = t[5];
    g_object_ref(*layer);
    return 0;
}

// An 8-bit RGBA mark (or layer) as RGB16, each level times 257, as libvips widens 8 bits.
static int widen(VipsImage *mark, VipsObject *scope, VipsImage **out) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 2);
    return vips_linear1(mark, &t[0], 257.0, 0.0, NULL) || vips_cast(t[0], &t[1], VIPS_FORMAT_USHORT, NULL) ||
           vips_copy(t[1], out, "interpretation", VIPS_INTERPRETATION_RGB16, NULL);
}

// Over `image` in its own depth: RGB16 for 16 bits a sample (the layer widened), else sRGB.
static int lay_over(VipsImage *image, VipsImage *layer, int sixteen, VipsObject *scope, VipsImage **out) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 3);
    if (sixteen) {
        if (widen(layer, scope, &t[0])) return -1;
        layer = t[0];
    }
    VipsInterpretation space = sixteen ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB;
    return vips_composite2(image, layer, &t[1], VIPS_BLEND_MODE_OVER, "compositing_space", space, NULL) ||
           vips_cast(t[1], out, sixteen ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR, NULL);
}

// One mark on a still: only the area under it is composited (a float pass), then put back into
// the image, which is otherwise copied as it is. Writes NULL to `out` when the mark misses.
static int magpie_mark_area(VipsImage *image, VipsImage *mark, const magpie_watermark_options *options, int sixteen, VipsObject *scope,
                            VipsImage **out) {
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 6);
    if (options->opacity < 1) {
        double scale[4] = {1, 1, 1, options->opacity < 0 ? 0 : options->opacity}, offset[4] = {0, 0, 0, 0};
        if (vips_linear(mark, &t[0], scale, offset, 4, "uchar", TRUE, NULL)) return -1;
        mark = t[0];
    }
    int left = options->lefts[0], top = options->tops[0];
    int x0 = left < 0 ? 0 : left, y0 = top < 0 ? 0 : top;
    int x1 = left + mark->Xsize > image->Xsize ? image->Xsize : left + mark->Xsize;
    int y1 = top + mark->Ysize > image->Ysize ? image->Ysize : top + mark->Ysize;
    if (x1 <= x0 || y1 <= y0) {
        *out = NULL;
        return 0;
    }
    if (vips_extract_area(image, &t[1], x0, y0, x1 - x0, y1 - y0, NULL) ||
        vips_extract_area(mark, &t[2], x0 - left, y0 - top, x1 - x0, y1 - y0, NULL) || lay_over(t[1], t[2], sixteen, scope, &t[4]))
        return -1;
    return vips_insert(image, t[4], out, x0, y0, NULL);
}

magpie_status magpie_watermark(const unsigned char *pixels, int width, int height, int frames, const unsigned char *mark_pixels,
                               int mark_width, int mark_height, const magpie_watermark_options *options, magpie_image *result,
                               char *error, size_t error_length) {
    result->handle = NULL;
    result->owned_data = NULL;
    if (width <= 0 || height <= 0 || frames <= 0 || mark_width <= 0 || mark_height <= 0 ||
        (!options->tile && (options->column_count <= 0 || options->row_count <= 0 || !options->lefts || !options->tops))) {
        magpie_set_error(error, error_length, "the image or the mark is empty");
        return MAGPIE_STATUS_FAILED;
    }
    int sixteen = options->sample_bytes == 2;
    if (sixteen && frames != 1) {
        magpie_set_error(error, error_length, "only stills have 16 bits a sample");
        return MAGPIE_STATUS_FAILED;
    }
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 6);
    t[0] = sixteen ? magpie_wrap_rgba16(pixels, width, height) : magpie_wrap_rgba(pixels, width, height * frames);
    t[1] = magpie_wrap_rgba(mark_pixels, mark_width, mark_height);
    if (t[0] && t[1] && frames == 1 && !options->tile && options->column_count == 1 && options->row_count == 1) {
        VipsImage *marked = NULL;
        int failed = magpie_mark_area(t[0], t[1], options, sixteen, scope, &marked);
        if (failed) {
            magpie_take_error(error, error_length, "could not lay the watermark");
            g_object_unref(scope);
            return MAGPIE_STATUS_FAILED;
        }
        // A mark wholly outside leaves the image as it is. `marked` is already this caller's.
        VipsImage *out = marked;
        if (!out) {
            out = t[0];
            g_object_ref(out);
        }
        g_object_unref(scope);
        result->handle = out;
        result->frames = 1;
        result->sample_bytes = sixteen ? 2 : 1;
        result->width = width;
        result->height = height;
        result->source.width = width;
        result->source.height = height;
        return MAGPIE_STATUS_OK;
    }
    int failed = !t[0] || !t[1] || magpie_mark_layer(t[1], width, height, options, scope, &t[2]);
    // Every frame of an animation under the same layer, in one composite over the stack.
    VipsImage *layer = t[2];
    if (!failed && frames > 1) {
        failed = vips_replicate(t[2], &t[3], 1, frames, NULL);
        layer = t[3];
    }
    failed = failed || lay_over(t[0], layer, sixteen, scope, &t[5]);
    if (failed) {
        magpie_take_error(error, error_length, "could not lay the watermark");
        g_object_unref(scope);
        return MAGPIE_STATUS_FAILED;
    }
    VipsImage *out = t[5];
    g_object_ref(out);
    g_object_unref(scope);
    result->handle = out;
    result->frames = frames;
    result->sample_bytes = sixteen ? 2 : 1;
    result->width = width;
    result->height = height;
    result->source.width = width;
    result->source.height = height;
    return MAGPIE_STATUS_OK;
}
