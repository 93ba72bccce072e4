#include "frame_progress.h"
#include "magpie_encode.h"
#include "magpie_runtime.h"
#include "shim_internal.h"

#include <pthread.h>
#include <string.h>
#include <vips/vips.h>

// An animation's encoder reading the frames as they are rendered. libvips' WebP and GIF savers
// pull the image top to bottom and write each frame once its rows have arrived; here the rows
// come from a libvips image whose pixels are copied from the render's output once their frame
// is final, so a saver started on its own thread encodes frame n while frame n + 1 is decoded
// and processed. The render's threads do not wait for the encoder: it only reads what they
// have finished.

typedef struct {
    magpie_frame_progress progress;
    const unsigned char *destination;
    int width;
    int height;
    magpie_encode_options options;
    unsigned char *output;
    size_t output_length;
    magpie_status status;
    /// Why the encoder failed (the caller learns it by encoding the pixels again).
    char error[512];
} encoding_job;

// Fills `out` with rows of finished frames, waiting for them; fails when the render stopped
// without finishing them (the saver then fails, and the job with it).
static int copy_finished_rows(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)sequence;
    (void)b;
    (void)stop;
    encoding_job *job = a;
    const VipsRect *rows = &out->valid;
    // The job's fields are read only after the wait, which orders them for this thread.
    if (!magpie_progress_wait_rows(&job->progress, rows->top, rows->height)) {
        vips_error("magpie", "the animation's frames were not all rendered");
        return -1;
    }
    size_t stride = (size_t)job->width * 4;
    for (int y = rows->top; y < rows->top + rows->height; y++)
        memcpy(VIPS_REGION_ADDR(out, rows->left, y), job->destination + stride * y + (size_t)rows->left * 4, (size_t)rows->width * 4);
    return 0;
}

static void *encode_as_rendered(void *data) {
    encoding_job *job = data;
    // The first frame decides whether the animation is written with alpha.
    if (!magpie_progress_wait_rows(&job->progress, 0, 1)) {
        magpie_set_error(job->error, sizeof job->error, "the animation's first frame was not rendered");
        job->status = MAGPIE_STATUS_FAILED;
        return NULL;
    }
    VipsImage *strip = vips_image_new();
    vips_image_init_fields(strip, job->width, job->height * job->options.frames, 4, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
                           VIPS_INTERPRETATION_sRGB, 1.0, 1.0);
    if (vips_image_pipelinev(strip, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
        vips_image_generate(strip, NULL, copy_finished_rows, NULL, job, NULL)) {
        g_object_unref(strip);
        magpie_take_error(job->error, sizeof job->error, "could not follow the animation's frames");
        job->status = MAGPIE_STATUS_FAILED;
        return NULL;
    }
    job->status = magpie_encode_image(strip, job->destination, job->width, job->height, &job->options, &job->output,
                                      &job->output_length, job->error, sizeof job->error);
    g_object_unref(strip);
    return NULL;
}

magpie_status magpie_render_encoding(magpie_image *image, unsigned char *destination, size_t length,
                                     const magpie_encode_options *options, unsigned char **output, size_t *output_length,
                                     char *error, size_t error_length) {
    *output = NULL;
    *output_length = 0;
    int animation = image->frame_plan && image->frames > 1 && image->sample_bytes <= 1 &&
                    (options->format == MAGPIE_FORMAT_WEBP || options->format == MAGPIE_FORMAT_GIF);
    encoding_job *job = animation ? g_try_new0(encoding_job, 1) : NULL;
    if (!job || !magpie_progress_init(&job->progress, image->frames, image->height)) {
        g_free(job);
        return magpie_render(image, destination, length, error, error_length);
    }
    job->destination = destination;
    job->width = image->width;
    job->height = image->height;
    job->options = *options;
    job->options.frames = image->frames;
    job->options.delays = image->delays;
    job->options.loop = image->loop;
    job->options.sample_bytes = 1;
    magpie_frames_follow(image, &job->progress);
    pthread_t encoder;
    int started = pthread_create(&encoder, NULL, encode_as_rendered, job) == 0;
    magpie_status status = magpie_render(image, destination, length, error, error_length);
    magpie_frames_follow(image, NULL);
    magpie_progress_stop(&job->progress);
    if (started) pthread_join(encoder, NULL);
    // An encoder that failed leaves `*output` NULL: the caller encodes the rendered pixels
    // itself, and reports that encoder's failure as its own.
    if (status == MAGPIE_STATUS_OK && started && job->status == MAGPIE_STATUS_OK) {
        *output = job->output;
        *output_length = job->output_length;
    } else {
        magpie_free_buffer(job->output);
    }
    magpie_progress_destroy(&job->progress);
    g_free(job);
    return status;
}
