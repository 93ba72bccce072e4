#include "magpie_runtime.h"
#include "shim_internal.h"

#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>
#include <vips/vector.h>

static magpie_log_fn magpie_log = NULL;

static void forward_glib_log(const gchar *domain, GLogLevelFlags level, const gchar *message,
                             gpointer user_data) {
    (void)domain;
    (void)user_data;
    if (!magpie_log) return;
    int mapped = MAGPIE_LOG_DEBUG;
    if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL)) mapped = MAGPIE_LOG_ERROR;
    else if (level & G_LOG_LEVEL_WARNING) mapped = MAGPIE_LOG_WARNING;
    // libvips reports routine progress with g_info; only g_message is worth an info line.
    else if (level & G_LOG_LEVEL_MESSAGE) mapped = MAGPIE_LOG_INFO;
    magpie_log(mapped, message ? message : "");
}

static GOnce init_once = G_ONCE_INIT;
static char init_error[256];

static gpointer initialize_once(gpointer log) {
    magpie_log = (magpie_log_fn)log;
    // libvips records its prefix in VIPSHOME while it starts (the wheel's is the folder it was
    // built in); every child process of the program would inherit it, and a child's own libvips
    // would look for its modules there. The program's environment is put back as it was.
    const char *home = getenv("VIPSHOME");
    char *saved_home = home ? strdup(home) : NULL;
    int started = VIPS_INIT("magpie");
    if (saved_home) {
        setenv("VIPSHOME", saved_home, 1);
        free(saved_home);
    } else {
        unsetenv("VIPSHOME");
    }
    if (started) {
        magpie_take_error(init_error, sizeof init_error, "libvips failed to start");
        return GINT_TO_POINTER(1);
    }
    // Decoded results are cached by Magpie itself; libvips' operation cache would only
    // hold file-sized buffers alive behind our back.
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    // Loaders built on large third-party libraries (ImageMagick, PDF...) are not written for
    // hostile input; Magpie only ever needs the web formats. SVG is the exception, from bytes
    // only: librsvg (Rust, fuzzed) runs no scripts, and with no file to resolve against it
    // follows no reference outside the document (FormatsOutsideLibvipsTests feeds it hostile ones).
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoadSvgBuffer", FALSE);
    // libvips before 8.15 compiles a liborc program for each resample it builds; during a
    // 20,000-thumbnail soak on two decoding threads the process died with SIGSEGV inside
    // liborc's code allocator (orc_code_allocate_codemem), the crash sharp's users avoid by
    // turning liborc off. Without it the resample runs libvips' C loops: a 12 MP JPEG thumbnail
    // took 52.3 -> 53.8 ms. From 8.15 the vector paths are Highway's, compiled in, with no
    // liborc: they stay on.
    if (magpie_vips_uses_liborc())
        vips_vector_set_enabled(FALSE);
    const GLogLevelFlags levels =
        G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION;
    g_log_set_handler("VIPS", levels, forward_glib_log, NULL);
    g_log_set_handler("GLib-GObject", levels, forward_glib_log, NULL);
    return GINT_TO_POINTER(0);
}

magpie_status magpie_initialize(magpie_log_fn log, char *error, size_t error_length) {
    int status = GPOINTER_TO_INT(g_once(&init_once, initialize_once, (gpointer)log));
    if (status != 0) {
        magpie_set_error(error, error_length, init_error);
        return MAGPIE_STATUS_FAILED;
    }
    return MAGPIE_STATUS_OK;
}


void magpie_free_buffer(void *buffer) { g_free(buffer); }

int magpie_vips_version(void) {
    return vips_version(0) * 10000 + vips_version(1) * 100 + vips_version(2);
}

int magpie_vips_uses_liborc(void) { return magpie_vips_version() < 81500; }

int magpie_vips_vectorised(void) { return vips_vector_isenabled() ? 1 : 0; }

int magpie_vips_threads_per_operation(void) { return vips_concurrency_get(); }

void magpie_vips_set_threads_per_operation(int count) {
    // libvips reads 0 as "the default" and holds at most 1024 threads a pool.
    vips_concurrency_set(count < 1 ? 1 : count > 1024 ? 1024 : count);
}

void magpie_vips_tracked_memory(size_t *current, size_t *highest, int *allocations) {
    *current = vips_tracked_get_mem();
    *highest = vips_tracked_get_mem_highwater();
    *allocations = vips_tracked_get_allocs();
}
