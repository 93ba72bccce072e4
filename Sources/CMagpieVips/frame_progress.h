// Which frames of an animation have been rendered, for a reader that follows the render on
// another thread (the encoder of render_encoding.c): frames finish out of order when two
// threads share them, and the reader waits for the ones it needs.
#ifndef MAGPIE_FRAME_PROGRESS_H
#define MAGPIE_FRAME_PROGRESS_H

#include <pthread.h>

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    /// One flag a frame: 1 once its pixels are final.
    unsigned char *finished;
    int frames;
    /// Set when the render stopped: nothing more will finish.
    int stopped;
} magpie_frame_progress;

/// Starts with no frame finished; 0 when memory or the lock cannot be had.
int magpie_progress_init(magpie_frame_progress *progress, int frames);
void magpie_progress_destroy(magpie_frame_progress *progress);
/// Frame `index`'s pixels are final (NULL `progress`: nobody follows).
void magpie_progress_finish(magpie_frame_progress *progress, int index);
/// The render has ended, finished or not: waiters stop waiting.
void magpie_progress_stop(magpie_frame_progress *progress);
/// Waits until frames `first`...`last` are all final: 1, or 0 when the render stopped first.
int magpie_progress_wait(magpie_frame_progress *progress, int first, int last);

#endif
