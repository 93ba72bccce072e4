#ifndef MAGPIE_JPEG_ERRORS_H
#define MAGPIE_JPEG_ERRORS_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>

/// Where libjpeg reports to. Its default ends the process on a fatal error; Magpie's readers
/// jump back to their own `setjmp(errors.jump)` instead and clean up there.
typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
} magpie_jpeg_errors;

/// Makes `info` (zeroed, so that a jump out of jpeg_create_decompress leaves nothing for destroy
/// to free) report through `errors`: a fatal error jumps to `errors->jump`, and so does a
/// warning (libjpeg only warns of truncated or corrupt data, filling the gap with grey) when
/// `warnings_fail`; otherwise warnings are dropped.
void magpie_jpeg_report_to(struct jpeg_decompress_struct *info, magpie_jpeg_errors *errors, int warnings_fail);

#endif
