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
    /// Rows a frame, for readers that ask by rows.
    int frame_height;
    /// Set when the render stopped: nothing more will finish.
    int stopped;
} magpie_frame_progress;

/// Starts with no frame finished; 0 for no frames, or when the memory cannot be had.
int magpie_progress_init(magpie_frame_progress *progress, int frames, int frame_height);
void magpie_progress_destroy(magpie_frame_progress *progress);
/// Frame `index`'s pixels are final (NULL `progress`: nobody follows).
void magpie_progress_finish(magpie_frame_progress *progress, int index);
/// The render has ended, finished or not: waiters stop waiting.
void magpie_progress_stop(magpie_frame_progress *progress);
/// Waits until the frames holding rows `top`...`top + height - 1` are all final: 1, or 0 when the
/// render stopped first. What the caller reads afterwards was written before those frames
/// were finished, so it is ordered by this lock for any reader, whatever thread it runs on.
int magpie_progress_wait_rows(magpie_frame_progress *progress, int top, int height);

#endif
