#include "jpeg_errors.h"
#include "magpie_formats.h"

#include <string.h>

// Whether a JPEG announces a gain map, from the markers before its first scan, as libjpeg reads
// them. libvips' own test (uhdrload's, in a libvips built with libultrahdr) parses the gain
// map's image too: 8 ms a call for a 12 MP photo, where this reads the primary's header only.

static int starts_with(const jpeg_saved_marker_ptr marker, const char *prefix, size_t length) {
    return marker->data_length >= length && memcmp(marker->data, prefix, length) == 0;
}

// Finds `needle` in the saved bytes of an APP1 XMP packet.
static int contains(const jpeg_saved_marker_ptr marker, const char *needle) {
    size_t length = strlen(needle);
    for (unsigned int at = 0; at + length <= marker->data_length; at++)
        if (memcmp(marker->data + at, needle, length) == 0) return 1;
    return 0;
}

int magpie_jpeg_has_gain_map(const void *data, size_t length) {
    static const char xmp[] = "http://ns.adobe.com/xap/1.0/";
    static const char iso[] = "urn:iso:std:iso:ts:21496:-1";
    struct jpeg_decompress_struct info;
    memset(&info, 0, sizeof info);
    magpie_jpeg_errors errors;
    magpie_jpeg_report_to(&info, &errors, 0);
    volatile int multi_picture = 0, gain_map_metadata = 0;
    if (setjmp(errors.jump)) goto done;
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, length);
    // The MPF and ISO 21496-1 segments announce themselves in their first bytes; XMP says
    // `hdrgm` (Ultra HDR's namespace) somewhere in its packet, whose segment is at most 64 kB.
    jpeg_save_markers(&info, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&info, JPEG_APP0 + 2, sizeof iso);
    jpeg_read_header(&info, TRUE);
    for (jpeg_saved_marker_ptr marker = info.marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 2 && starts_with(marker, "MPF", 4)) multi_picture = 1;
        if (marker->marker == JPEG_APP0 + 2 && starts_with(marker, iso, sizeof iso)) gain_map_metadata = 1;
        if (marker->marker == JPEG_APP0 + 1 && starts_with(marker, xmp, sizeof xmp) && contains(marker, "hdrgm:"))
            gain_map_metadata = 1;
    }
done:
    jpeg_destroy_decompress(&info);
    return multi_picture && gain_map_metadata;
}
