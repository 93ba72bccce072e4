#include "frame_progress.h"
#include "shim_internal.h"
#include "webp_frames.h"

#include <pthread.h>
#include <string.h>
#include <vips/vips.h>

// Animations are rendered one frame at a time: each frame is cut out, sent through its own
// small pipeline and freed before long. A kernel never reaches across a frame boundary, and
// only a few frames' buffers exist at once. Two things this avoids: joining hundreds of
// per-frame pipelines with vips_arrayjoin made every render thread hold buffers for all of
// them (1.7 GB for a 380-frame GIF), and keeping every frame's pipeline alive made libvips'
// parent-child bookkeeping quadratic.
//
// Frames are independent once decoded, so two threads share the work: the calling thread and
// one helper. A GIF or WebP decoder works through its frames in order, so when decoding, the
// calling thread decodes and the helper processes; frames already in memory are split
// between the two.
typedef struct {
    VipsImage *strip;
    /// Frames already in memory (processing), or NULL when `strip` decodes them.
    const unsigned char *pixels;
    int frames;
    int frame_width;
    int frame_height;
    /// 1 or 0 when known for every frame; -1 to look at each frame once decoded: an opaque
    /// frame is resized as 8-bit RGB instead of premultiplied floating point (three times
    /// faster).
    int opaque;
    /// What each frame goes through (its `apply` NULL for none); the plan owns its arguments'
    /// copy.
    magpie_operation operation;
    /// Fixed by the first frame, then only read.
    magpie_crop_box box;
    /// The first frame's result, built while planning; rendered first.
    VipsImage *first;
    /// The decoded first frame `first` reads from, when decoding.
    unsigned char *first_pixels;
    /// Told of each frame as it is finished, when something reads the output while it renders.
    magpie_frame_progress *progress;
    /// Where an animated WebP's frames come from instead of `strip`, when libwebp can decode it.
    magpie_webp_frames *webp;
} frame_plan;

static size_t frame_bytes(const frame_plan *plan) { return (size_t)plan->frame_width * plan->frame_height * 4; }

// One decoded frame in memory through the operation. `box` is the caller's copy of the plan's.
static magpie_status process_frame(const frame_plan *plan, const unsigned char *pixels, magpie_crop_box *box, VipsImage **out,
                                   char *error, size_t error_length) {
    size_t count = (size_t)plan->frame_width * plan->frame_height;
    VipsImage *wrapped = magpie_wrap_rgba(pixels, plan->frame_width, plan->frame_height);
    if (!wrapped) {
        magpie_take_error(error, error_length, "processing a frame failed");
        return MAGPIE_STATUS_FAILED;
    }
    int opaque = plan->opaque >= 0 ? plan->opaque : magpie_is_opaque(pixels, count);
    magpie_status status = magpie_apply_operation(wrapped, opaque, &plan->operation, box, out, error, error_length);
    g_object_unref(wrapped);
    return status;
}

// Decodes frame `index` of the strip into `destination` (calling thread only: the decoder
// keeps state from frame to frame).
static magpie_status decode_frame(const frame_plan *plan, int index, unsigned char *destination, char *error,
                                  size_t error_length) {
    if (plan->webp) return magpie_webp_frames_next(plan->webp, index, destination, error, error_length);
    VipsImage *frame = NULL;
    if (vips_extract_area(plan->strip, &frame, 0, index * plan->frame_height, plan->frame_width, plan->frame_height, NULL)) {
        magpie_take_error(error, error_length, "decoding a frame failed");
        return MAGPIE_STATUS_FAILED;
    }
    magpie_status status = magpie_render_here(frame, destination, error, error_length);
    g_object_unref(frame);
    return status;
}

// Renders a frame's result into its place in the output.
static magpie_status finish_frame(const magpie_image *image, VipsImage *result, int index, unsigned char *destination,
                                  char *error, size_t error_length) {
    if (result->Xsize != image->width || result->Ysize != image->height) {
        magpie_set_error(error, error_length, "the frames came out in different sizes");
        return MAGPIE_STATUS_FAILED;
    }
    size_t size = (size_t)image->width * image->height * 4;
    return magpie_render_here(result, destination + size * index, error, error_length);
}

static magpie_status process_and_finish(const frame_plan *plan, const magpie_image *image, const unsigned char *pixels,
                                        int index, unsigned char *destination, char *error, size_t error_length) {
    magpie_crop_box box = plan->box;
    VipsImage *result = NULL;
    magpie_status status = process_frame(plan, pixels, &box, &result, error, error_length);
    if (status != MAGPIE_STATUS_OK) return status;
    status = finish_frame(image, result, index, destination, error, error_length);
    g_object_unref(result);
    if (status == MAGPIE_STATUS_OK) magpie_progress_finish(plan->progress, index);
    return status;
}

magpie_status magpie_plan_frames(VipsImage *strip, const unsigned char *pixels, magpie_webp_frames *webp, int frames, int opaque,
                       const magpie_operation *operation, magpie_image *image, char *error, size_t error_length) {
    frame_plan *plan = g_new0(frame_plan, 1);
    plan->strip = strip;
    g_object_ref(strip);
    plan->pixels = pixels;
    plan->webp = webp;
    plan->frames = frames;
    plan->frame_width = vips_image_get_width(strip);
    plan->frame_height = vips_image_get_height(strip) / frames;
    plan->opaque = opaque;
    magpie_status status = MAGPIE_STATUS_OK;
    if (operation) {
        plan->operation = *operation;
        plan->operation.arguments = operation->size ? memcpy(g_malloc(operation->size), operation->arguments, operation->size) : NULL;
    }
    // The first frame in memory where the plan reads it from there: to process it, or because
    // libwebp's frames are not in the strip.
    const unsigned char *first = pixels;
    if (!first && (operation || webp)) {
        plan->first_pixels = g_malloc(frame_bytes(plan));
        status = decode_frame(plan, 0, plan->first_pixels, error, error_length);
        first = plan->first_pixels;
    }
    if (status == MAGPIE_STATUS_OK) {
        if (operation) {
            status = process_frame(plan, first, &plan->box, &plan->first, error, error_length);
        } else if (plan->first_pixels ? !(plan->first = magpie_wrap_rgba(plan->first_pixels, plan->frame_width, plan->frame_height))
                                      : vips_extract_area(strip, &plan->first, 0, 0, plan->frame_width, plan->frame_height, NULL)) {
            magpie_take_error(error, error_length, "decoding failed");
            status = MAGPIE_STATUS_FAILED;
        }
    }
    if (status != MAGPIE_STATUS_OK) {
        magpie_free_frames(&(magpie_image){.frame_plan = plan});
        return status;
    }
    image->frame_plan = plan;
    image->frames = frames;
    image->width = vips_image_get_width(plan->first);
    image->height = vips_image_get_height(plan->first);
    return MAGPIE_STATUS_OK;
}

// MARK: - Two threads
//
// pthreads rather than GLib's threads and queues: GLib locks with bare futexes, which Thread
// Sanitizer cannot see, so it would report the hand-over of every frame as a race.

enum { BUFFERS = 3 };

typedef struct {
    const frame_plan *plan;
    const magpie_image *image;
    unsigned char *destination;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    // Decoding: frame i travels in buffer (i - 1) % BUFFERS; `filled` says which frame a
    // buffer holds (0 when free), `produced` how many frames the calling thread will hand over.
    unsigned char *buffers[BUFFERS];
    int filled[BUFFERS];
    int produced;
    int failed;
    char error[512];
} helper_job;

static void set_failed(helper_job *job) {
    pthread_mutex_lock(&job->lock);
    job->failed = 1;
    pthread_cond_broadcast(&job->changed);
    pthread_mutex_unlock(&job->lock);
}

static int has_failed(helper_job *job) {
    pthread_mutex_lock(&job->lock);
    int failed = job->failed;
    pthread_mutex_unlock(&job->lock);
    return failed;
}

// Splitting frames in memory: the helper takes every other frame, from frame 2.
static void *split_helper(void *data) {
    helper_job *job = data;
    const frame_plan *plan = job->plan;
    for (int i = 2; i < plan->frames && !has_failed(job); i += 2) {
        if (process_and_finish(plan, job->image, plan->pixels + frame_bytes(plan) * i, i, job->destination, job->error,
                               sizeof job->error) != MAGPIE_STATUS_OK)
            set_failed(job);
    }
    return NULL;
}

// Processes frames 1... in order as the calling thread decodes them.
static void *decoded_helper(void *data) {
    helper_job *job = data;
    for (int i = 1;; i++) {
        int slot = (i - 1) % BUFFERS;
        pthread_mutex_lock(&job->lock);
        while (job->filled[slot] != i && !job->failed && i <= job->produced) pthread_cond_wait(&job->changed, &job->lock);
        int stop = job->failed || job->filled[slot] != i;
        pthread_mutex_unlock(&job->lock);
        if (stop) return NULL;
        magpie_status status = process_and_finish(job->plan, job->image, job->buffers[slot], i, job->destination, job->error,
                                                  sizeof job->error);
        pthread_mutex_lock(&job->lock);
        job->filled[slot] = 0;
        if (status != MAGPIE_STATUS_OK) job->failed = 1;
        pthread_cond_broadcast(&job->changed);
        pthread_mutex_unlock(&job->lock);
    }
}

static magpie_status finish_job(helper_job *job, pthread_t *helper, magpie_status status, char *error, size_t error_length) {
    if (helper) pthread_join(*helper, NULL);
    if (status == MAGPIE_STATUS_OK && job->failed) {
        magpie_set_error(error, error_length, job->error);
        status = MAGPIE_STATUS_FAILED;
    }
    pthread_cond_destroy(&job->changed);
    pthread_mutex_destroy(&job->lock);
    return status;
}

// Frames 1... of an animation whose frames are in memory, split with the helper.
static magpie_status render_split(const frame_plan *plan, const magpie_image *image, unsigned char *destination,
                                  char *error, size_t error_length) {
    helper_job job = {.plan = plan, .image = image, .destination = destination};
    pthread_mutex_init(&job.lock, NULL);
    pthread_cond_init(&job.changed, NULL);
    pthread_t thread;
    int helped = plan->frames > 2 && pthread_create(&thread, NULL, split_helper, &job) == 0;
    // Without a helper this thread does every frame.
    int step = helped ? 2 : 1;
    magpie_status status = MAGPIE_STATUS_OK;
    for (int i = 1; i < plan->frames && !has_failed(&job); i += step) {
        status = process_and_finish(plan, image, plan->pixels + frame_bytes(plan) * i, i, destination, error, error_length);
        if (status != MAGPIE_STATUS_OK) {
            set_failed(&job);
            break;
        }
    }
    return finish_job(&job, helped ? &thread : NULL, status, error, error_length);
}

// Frames 1... of an animation being decoded: this thread decodes in order, the helper
// processes, through a few buffers that go back and forth.
static magpie_status render_decoded(const frame_plan *plan, const magpie_image *image, unsigned char *destination,
                                    char *error, size_t error_length) {
    helper_job job = {.plan = plan, .image = image, .destination = destination, .produced = plan->frames - 1};
    pthread_mutex_init(&job.lock, NULL);
    pthread_cond_init(&job.changed, NULL);
    for (int i = 0; i < BUFFERS; i++) job.buffers[i] = g_malloc(frame_bytes(plan));
    pthread_t thread;
    int helped = pthread_create(&thread, NULL, decoded_helper, &job) == 0;
    magpie_status status = MAGPIE_STATUS_OK;
    for (int i = 1; i < plan->frames && status == MAGPIE_STATUS_OK; i++) {
        int slot = (i - 1) % BUFFERS;
        pthread_mutex_lock(&job.lock);
        while (job.filled[slot] != 0 && !job.failed) pthread_cond_wait(&job.changed, &job.lock);
        int failed = job.failed;
        pthread_mutex_unlock(&job.lock);
        if (failed) break;
        status = decode_frame(plan, i, job.buffers[slot], error, error_length);
        if (status == MAGPIE_STATUS_OK && !helped)
            status = process_and_finish(plan, image, job.buffers[slot], i, destination, error, error_length);
        if (!helped) continue;
        pthread_mutex_lock(&job.lock);
        if (status == MAGPIE_STATUS_OK) job.filled[slot] = i;
        else job.produced = i - 1;
        pthread_cond_broadcast(&job.changed);
        pthread_mutex_unlock(&job.lock);
    }
    status = finish_job(&job, helped ? &thread : NULL, status, error, error_length);
    for (int i = 0; i < BUFFERS; i++) g_free(job.buffers[i]);
    return status;
}

magpie_status magpie_render_frames(magpie_image *image, unsigned char *destination, size_t length, char *error,
                                   size_t error_length) {
    frame_plan *plan = image->frame_plan;
    size_t size = (size_t)image->width * image->height * 4;
    if (length != size * image->frames || !plan->first) {
        magpie_set_error(error, error_length, "the destination does not fit the image");
        return MAGPIE_STATUS_FAILED;
    }
    magpie_status status = finish_frame(image, plan->first, 0, destination, error, error_length);
    g_object_unref(plan->first);
    plan->first = NULL;
    if (status == MAGPIE_STATUS_OK) magpie_progress_finish(plan->progress, 0);
    if (status != MAGPIE_STATUS_OK || image->frames == 1) return status;
    if (plan->operation.apply && plan->pixels) return render_split(plan, image, destination, error, error_length);
    if (plan->operation.apply) return render_decoded(plan, image, destination, error, error_length);
    // Decoding at full size: the decoder is the work, and it goes in order.
    for (int i = 1; i < image->frames && status == MAGPIE_STATUS_OK; i++) {
        status = decode_frame(plan, i, destination + size * i, error, error_length);
        if (status == MAGPIE_STATUS_OK) magpie_progress_finish(plan->progress, i);
    }
    return status;
}

void magpie_frames_follow(magpie_image *image, magpie_frame_progress *progress) {
    if (image->frame_plan) ((frame_plan *)image->frame_plan)->progress = progress;
}

void magpie_free_frames(magpie_image *image) {
    frame_plan *plan = image->frame_plan;
    if (!plan) return;
    if (plan->first) g_object_unref(plan->first);
    g_object_unref(plan->strip);
    magpie_webp_frames_close(plan->webp);
    g_free(plan->first_pixels);
    g_free((void *)plan->operation.arguments);
    g_free(plan);
    image->frame_plan = NULL;
}
