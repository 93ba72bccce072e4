// A narrow, non-variadic C surface over libvips for Swift, split by job: this file (start-up,
// logging, status codes), formats, decode, encode and process.
//
// Swift cannot call libvips' variadic functions, and the public Swift API must not expose
// GLib or libvips types, so everything here is plain C: buffers in, RGBA8 out.
#ifndef MAGPIE_RUNTIME_H
#define MAGPIE_RUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Result codes of every call that can fail.
typedef enum {
    MAGPIE_STATUS_OK = 0,
    MAGPIE_STATUS_NOT_AN_IMAGE = 1,
    MAGPIE_STATUS_UNSUPPORTED = 2,
    MAGPIE_STATUS_TOO_MANY_PIXELS = 3,
    MAGPIE_STATUS_FAILED = 4,
    /// An animation over the frame or total-pixel limit (see `magpie_decode_options`).
    MAGPIE_STATUS_ANIMATION_TOO_LARGE = 5,
} magpie_status;

/// Log levels passed to the log callback.
typedef enum {
    MAGPIE_LOG_DEBUG = 0,
    MAGPIE_LOG_INFO = 1,
    MAGPIE_LOG_WARNING = 2,
    MAGPIE_LOG_ERROR = 3,
} magpie_log_level;

typedef void (*magpie_log_fn)(int level, const char *message);

/// Starts libvips once per process: operation cache off, untrusted loaders blocked,
/// GLib warnings from libvips sent to `log`. Returns 0 on success.
magpie_status magpie_initialize(magpie_log_fn log, char *error, size_t error_length);

/// The version of the libvips loaded at run time (which may be newer than the headers Magpie
/// was compiled with), as major * 10000 + minor * 100 + micro: 81807 for 8.18.7.
int magpie_vips_version(void);

/// 1 when the loaded libvips takes its SIMD from liborc (before 8.15), which Magpie switches
/// off at start-up.
int magpie_vips_uses_liborc(void);

/// 1 when libvips runs its vector (SIMD) paths: liborc before 8.15, which Magpie switches off,
/// Highway from 8.15. Meaningful after `magpie_initialize`.
int magpie_vips_vectorised(void);

/// Threads libvips gives each operation it runs (its concurrency), for the whole process.
int magpie_vips_threads_per_operation(void);

/// Sets them, from 1 to 1024; starts nothing by itself (call after `magpie_initialize`).
void magpie_vips_set_threads_per_operation(int count);

/// The pixel buffers libvips holds now, the most it has held at once, and how many there are
/// (its own accounting: `vips_tracked_*`).
void magpie_vips_tracked_memory(size_t *current, size_t *highest, int *allocations);

/// Frees a buffer returned by `magpie_encode`.
void magpie_free_buffer(void *buffer);

#ifdef __cplusplus
}
#endif

#endif
