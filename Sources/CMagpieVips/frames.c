#include "shim_internal.h"

#include <string.h>
#include <vips/vips.h>

// Animations are rendered one frame at a time, each frame cut from the tall image and sent
// through its own small pipeline that is freed before the next one is made. A kernel never
// reaches across a frame boundary, and only one frame's buffers exist at once. Two things
// this avoids: joining hundreds of per-frame pipelines with vips_arrayjoin made every render
// thread hold buffers for all of them (1.7 GB for a 380-frame GIF), and keeping every
// frame's pipeline alive made libvips' parent-child bookkeeping quadratic.
typedef struct {
    VipsImage *strip;
    /// 1 or 0 when known for every frame; -1 to look at each decoded frame (see below).
    int opaque;
    /// One decoded frame, reused for every frame when `opaque` is -1.
    unsigned char *scratch;
    int has_operation;
    magpie_process_options options;
    magpie_crop_box box;
    // The first frame's pipeline, built while planning; rendered and dropped first.
    VipsImage *first;
} frame_plan;

// When a decoded animation is shrunk, whether a frame is opaque is only known once it is
// decoded, and an opaque frame resizes as 8-bit RGB instead of premultiplied floating point
// (three times faster here). So each frame is decoded into one reused buffer, looked at, and
// resized from there.
static int decode_to_scratch(frame_plan *plan, VipsImage **frame, int *opaque, char *error, size_t error_length) {
    int width = (*frame)->Xsize, height = (*frame)->Ysize;
    size_t pixels = (size_t)width * height;
    if (!plan->scratch) plan->scratch = g_malloc(pixels * 4);
    if (magpie_render_here(*frame, plan->scratch, error, error_length) != MAGPIE_STATUS_OK) return 1;
    *opaque = magpie_is_opaque(plan->scratch, pixels);
    VipsImage *wrapped = vips_image_new_from_memory(plan->scratch, pixels * 4, width, height, 4, VIPS_FORMAT_UCHAR);
    if (!wrapped) return -1;
    wrapped->Type = VIPS_INTERPRETATION_sRGB;
    g_object_unref(*frame);
    *frame = wrapped;
    return 0;
}

static int build_frame(frame_plan *plan, int index, int frames, VipsImage **out, char *error, size_t error_length) {
    int width = vips_image_get_width(plan->strip), height = vips_image_get_height(plan->strip) / frames;
    VipsImage *frame = NULL;
    if (vips_extract_area(plan->strip, &frame, 0, index * height, width, height, NULL)) return -1;
    if (!plan->has_operation) {
        *out = frame;
        return 0;
    }
    int opaque = plan->opaque;
    int failed = opaque < 0 ? decode_to_scratch(plan, &frame, &opaque, error, error_length) : 0;
    if (!failed) failed = magpie_run_operation(frame, opaque, &plan->options, &plan->box, out, error, error_length);
    g_object_unref(frame);
    return failed;
}

int magpie_plan_frames(VipsImage *strip, int frames, int opaque, const magpie_process_options *options,
                       magpie_image *image, char *error, size_t error_length) {
    frame_plan *plan = g_new0(frame_plan, 1);
    plan->strip = strip;
    g_object_ref(strip);
    plan->opaque = opaque;
    if (options) {
        plan->has_operation = 1;
        plan->options = *options;
    }
    int failed = build_frame(plan, 0, frames, &plan->first, error, error_length);
    if (failed) {
        g_object_unref(plan->strip);
        g_free(plan->scratch);
        g_free(plan);
        return failed;
    }
    image->frame_plan = plan;
    image->frames = frames;
    image->width = vips_image_get_width(plan->first);
    image->height = vips_image_get_height(plan->first);
    return 0;
}

magpie_status magpie_render_frames(magpie_image *image, unsigned char *destination, size_t length, char *error,
                                   size_t error_length) {
    frame_plan *plan = image->frame_plan;
    size_t frame_bytes = (size_t)image->width * image->height * 4;
    if (length != frame_bytes * image->frames) {
        magpie_set_error(error, error_length, "the destination does not fit the image");
        return MAGPIE_STATUS_FAILED;
    }
    for (int i = 0; i < image->frames; i++) {
        VipsImage *frame = NULL;
        if (i == 0 && plan->first) {
            frame = plan->first;
            plan->first = NULL;
        } else if (build_frame(plan, i, image->frames, &frame, error, error_length)) {
            if (!error[0]) magpie_take_error(error, error_length, "rendering a frame failed");
            return MAGPIE_STATUS_FAILED;
        }
        magpie_status status = MAGPIE_STATUS_FAILED;
        if (frame->Xsize == image->width && frame->Ysize == image->height)
            status = magpie_render_here(frame, destination + frame_bytes * i, error, error_length);
        else
            magpie_set_error(error, error_length, "the frames came out in different sizes");
        g_object_unref(frame);
        if (status != MAGPIE_STATUS_OK) return status;
    }
    return MAGPIE_STATUS_OK;
}

void magpie_free_frames(magpie_image *image) {
    frame_plan *plan = image->frame_plan;
    if (!plan) return;
    if (plan->first) g_object_unref(plan->first);
    g_object_unref(plan->strip);
    g_free(plan->scratch);
    g_free(plan);
    image->frame_plan = NULL;
}
