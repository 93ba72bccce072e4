#include "jpeg_errors.h"
#include "magpie_formats.h"

#include <string.h>

// Whether a JPEG announces a gain map, from the segments before its first scan. libvips' own
// test (uhdrload's, in a libvips built with libultrahdr) parses the gain map's image too: 8 ms a
// call for a 12 MP photo, where this reads the primary's header only. libjpeg walks the markers;
// the APP1 and APP2 segments are looked at where they lie in the caller's bytes, never copied,
// so a file of a million tiny segments costs time in proportion to its size and no memory.

typedef struct {
    int multi_picture;
    int gain_map_metadata;
} announcements;

static int starts_with(const JOCTET *bytes, size_t length, const char *prefix, size_t prefix_length) {
    return length >= prefix_length && memcmp(bytes, prefix, prefix_length) == 0;
}

static int contains(const JOCTET *bytes, size_t length, const char *needle) {
    size_t needle_length = strlen(needle);
    for (size_t at = 0; at + needle_length <= length; at++)
        if (memcmp(bytes + at, needle, needle_length) == 0) return 1;
    return 0;
}

// libjpeg's marker processor for APP1 and APP2: jpeg_mem_src holds the whole file in its buffer.
static boolean look_at_segment(j_decompress_ptr info) {
    static const char xmp[] = "http://ns.adobe.com/xap/1.0/";
    static const char iso[] = "urn:iso:std:iso:ts:21496:-1";
    struct jpeg_source_mgr *source = info->src;
    if (source->bytes_in_buffer < 2) info->err->error_exit((j_common_ptr)info);
    size_t length = ((size_t)source->next_input_byte[0] << 8 | source->next_input_byte[1]);
    if (length < 2 || length > source->bytes_in_buffer) info->err->error_exit((j_common_ptr)info);
    const JOCTET *payload = source->next_input_byte + 2;
    size_t payload_length = length - 2;
    announcements *found = info->client_data;
    if (info->unread_marker == JPEG_APP0 + 2) {
        // Ultra HDR's MPF index of the primary and the gain map; ISO 21496-1's version segment.
        if (starts_with(payload, payload_length, "MPF", 4)) found->multi_picture = 1;
        if (starts_with(payload, payload_length, iso, sizeof iso)) found->gain_map_metadata = 1;
    } else if (starts_with(payload, payload_length, xmp, sizeof xmp) && contains(payload, payload_length, "hdrgm:")) {
        // Ultra HDR's XMP namespace, in the primary's packet.
        found->gain_map_metadata = 1;
    }
    source->next_input_byte += length;
    source->bytes_in_buffer -= length;
    return TRUE;
}

// Reads the header, the segments going to look_at_segment. A function of its own so that what
// a jump out of libjpeg leaves behind (`info`, what was found) is the caller's: setjmp makes
// only its own function's changed locals indeterminate.
static void read_header(struct jpeg_decompress_struct *info, magpie_jpeg_errors *errors, const void *data, size_t length) {
    if (setjmp(errors->jump)) return;
    jpeg_create_decompress(info);
    jpeg_mem_src(info, data, length);
    jpeg_set_marker_processor(info, JPEG_APP0 + 1, look_at_segment);
    jpeg_set_marker_processor(info, JPEG_APP0 + 2, look_at_segment);
    jpeg_read_header(info, TRUE);
}

int magpie_jpeg_has_gain_map(const void *data, size_t length) {
    struct jpeg_decompress_struct info;
    memset(&info, 0, sizeof info);
    magpie_jpeg_errors errors;
    magpie_jpeg_report_to(&info, &errors, 0);
    announcements found = {0, 0};
    info.client_data = &found;
    read_header(&info, &errors, data, length);
    jpeg_destroy_decompress(&info);
    return found.multi_picture && found.gain_map_metadata;
}
