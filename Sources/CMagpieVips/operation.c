// One operation on one still or frame: the step every operation's entry point and the frame
// plan share.
#include "shim_internal.h"

#include <vips/vips.h>

magpie_status magpie_apply_operation(VipsImage *rgba, int opaque, const magpie_operation *operation, magpie_crop_box *box,
                                     VipsImage **out, char *error, size_t error_length) {
    if (operation->apply(rgba, opaque, operation->arguments, box, out) == 0) return MAGPIE_STATUS_OK;
    magpie_take_error(error, error_length, "processing failed");
    return MAGPIE_STATUS_FAILED;
}

magpie_status magpie_refuse(char *error, size_t error_length, const char *text) {
    magpie_set_error(error, error_length, text);
    return MAGPIE_STATUS_FAILED;
}
