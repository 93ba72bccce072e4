#include "jpeg_errors.h"

static void jump_back(j_common_ptr info) { longjmp(((magpie_jpeg_errors *)info->err)->jump, 1); }

static void fail_on_warnings(j_common_ptr info, int level) {
    if (level < 0) jump_back(info);
}

static void drop_messages(j_common_ptr info, int level) {
    (void)info;
    (void)level;
}

void magpie_jpeg_report_to(struct jpeg_decompress_struct *info, magpie_jpeg_errors *errors, int warnings_fail) {
    info->err = jpeg_std_error(&errors->manager);
    errors->manager.error_exit = jump_back;
    errors->manager.emit_message = warnings_fail ? fail_on_warnings : drop_messages;
}
