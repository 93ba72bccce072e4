#include "frame_progress.h"

#include <glib.h>

int magpie_progress_init(magpie_frame_progress *progress, int frames, int frame_height) {
    if (frames < 1 || frame_height < 1) return 0;
    progress->finished = g_try_malloc0((gsize)frames);
    if (!progress->finished) return 0;
    progress->frames = frames;
    progress->frame_height = frame_height;
    progress->stopped = 0;
    pthread_mutex_init(&progress->lock, NULL);
    pthread_cond_init(&progress->changed, NULL);
    return 1;
}

void magpie_progress_destroy(magpie_frame_progress *progress) {
    // The readers are done (their saver has returned), but some were libvips workers, whose end
    // is signalled through GLib's locks; taking this lock orders their last reads before the
    // free for Thread Sanitizer too.
    pthread_mutex_lock(&progress->lock);
    pthread_mutex_unlock(&progress->lock);
    pthread_cond_destroy(&progress->changed);
    pthread_mutex_destroy(&progress->lock);
    g_free(progress->finished);
    progress->finished = NULL;
}

void magpie_progress_finish(magpie_frame_progress *progress, int index) {
    if (!progress) return;
    pthread_mutex_lock(&progress->lock);
    if (index >= 0 && index < progress->frames) progress->finished[index] = 1;
    pthread_cond_broadcast(&progress->changed);
    pthread_mutex_unlock(&progress->lock);
}

void magpie_progress_stop(magpie_frame_progress *progress) {
    pthread_mutex_lock(&progress->lock);
    progress->stopped = 1;
    pthread_cond_broadcast(&progress->changed);
    pthread_mutex_unlock(&progress->lock);
}

int magpie_progress_wait_rows(magpie_frame_progress *progress, int top, int height) {
    // Everything is read under the lock: the reader can be a libvips worker, handed its work
    // through GLib's own locks, which Thread Sanitizer does not see.
    pthread_mutex_lock(&progress->lock);
    int index = top / progress->frame_height;
    int last = (top + height - 1) / progress->frame_height;
    int possible = index >= 0 && last < progress->frames;
    while (possible && index <= last) {
        if (progress->finished[index]) {
            index++;
        } else if (progress->stopped) {
            break;
        } else {
            pthread_cond_wait(&progress->changed, &progress->lock);
        }
    }
    pthread_mutex_unlock(&progress->lock);
    return possible && index > last;
}
