#ifndef MAGPIE_JPEG_DC_H
#define MAGPIE_JPEG_DC_H

#include <stddef.h>
#include <vips/vips.h>

/// The JPEG is not progressive, not YCbCr or grey, or damaged before its DC is complete:
/// decode it another way (libvips then reports any damage).
#define MAGPIE_JPEG_DC_NOT_APPLICABLE 1

/// Decodes a progressive JPEG at 1/8 scale from its DC scans only, without reading the rest.
///
/// At 1/8 scale each output pixel is the mean of an 8x8 block, which is the block's DC
/// coefficient; a progressive file sends every DC coefficient first, usually in a few percent
/// of its bytes, so the AC scans (the bulk of the file and of the work) can be skipped.
/// Precision is that of the first DC scan (usually one bit short) and subsampled chroma loses
/// its 2x2 detail, which the resize to a thumbnail averages away.
///
/// 0 and a new image in `out` (RGB or grey, with the file's ICC profile and EXIF orientation
/// attached for the caller to apply), or MAGPIE_JPEG_DC_NOT_APPLICABLE.
/// Damage after the DC scans goes unnoticed: those scans are never read.
int magpie_jpeg_dc_open(const void *data, size_t length, int orientation, VipsImage **out);

#endif
