#include "frame_progress.h"

#include <glib.h>

int magpie_progress_init(magpie_frame_progress *progress, int frames) {
    progress->finished = g_try_malloc0((gsize)frames);
    if (!progress->finished) return 0;
    progress->frames = frames;
    progress->stopped = 0;
    pthread_mutex_init(&progress->lock, NULL);
    pthread_cond_init(&progress->changed, NULL);
    return 1;
}

void magpie_progress_destroy(magpie_frame_progress *progress) {
    pthread_cond_destroy(&progress->changed);
    pthread_mutex_destroy(&progress->lock);
    g_free(progress->finished);
    progress->finished = NULL;
}

void magpie_progress_finish(magpie_frame_progress *progress, int index) {
    if (!progress || index < 0 || index >= progress->frames) return;
    pthread_mutex_lock(&progress->lock);
    progress->finished[index] = 1;
    pthread_cond_broadcast(&progress->changed);
    pthread_mutex_unlock(&progress->lock);
}

void magpie_progress_stop(magpie_frame_progress *progress) {
    pthread_mutex_lock(&progress->lock);
    progress->stopped = 1;
    pthread_cond_broadcast(&progress->changed);
    pthread_mutex_unlock(&progress->lock);
}

int magpie_progress_wait(magpie_frame_progress *progress, int first, int last) {
    if (first < 0 || last >= progress->frames) return 0;
    pthread_mutex_lock(&progress->lock);
    int index = first;
    while (index <= last) {
        if (progress->finished[index]) {
            index++;
        } else if (progress->stopped) {
            break;
        } else {
            pthread_cond_wait(&progress->changed, &progress->lock);
        }
    }
    pthread_mutex_unlock(&progress->lock);
    return index > last;
}
