#include "webp_frames.h"
#include "shim_internal.h"

#include <glib.h>
#include <string.h>
#include <webp/demux.h>

struct magpie_webp_frames {
    WebPAnimDecoder *decoder;
    int width;
    int height;
    int frames;
    /// The index the next frame has.
    int next;
};

magpie_webp_frames *magpie_webp_frames_open(const void *data, size_t length, int width, int height, int frames) {
    WebPData file = {data, length};
    WebPDemuxer *demuxer = WebPDemux(&file);
    if (!demuxer) return NULL;
    // A profile is applied by the RGBA conversion libvips' path makes, which this one skips.
    int usable = !(WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & ICCP_FLAG) &&
                 (int)WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH) == width &&
                 (int)WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT) == height &&
                 (int)WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT) == frames;
    WebPDemuxDelete(demuxer);
    if (!usable) return NULL;
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return NULL;
    options.color_mode = MODE_RGBA;
    // The decoding threads are Magpie's: libwebp adds none of its own.
    options.use_threads = 0;
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&file, &options);
    if (!decoder) return NULL;
    magpie_webp_frames *result = g_new0(magpie_webp_frames, 1);
    *result = (magpie_webp_frames){.decoder = decoder, .width = width, .height = height, .frames = frames};
    return result;
}

magpie_status magpie_webp_frames_next(magpie_webp_frames *frames, int index, unsigned char *destination, char *error,
                                      size_t error_length) {
    uint8_t *canvas = NULL;
    int timestamp = 0;
    if (index != frames->next || index >= frames->frames || !WebPAnimDecoderHasMoreFrames(frames->decoder) ||
        !WebPAnimDecoderGetNext(frames->decoder, &canvas, &timestamp)) {
        magpie_set_error(error, error_length, "decoding a frame failed");
        return MAGPIE_STATUS_FAILED;
    }
    frames->next++;
    memcpy(destination, canvas, (size_t)frames->width * frames->height * 4);
    return MAGPIE_STATUS_OK;
}

void magpie_webp_frames_close(magpie_webp_frames *frames) {
    if (!frames) return;
    WebPAnimDecoderDelete(frames->decoder);
    g_free(frames);
}
