// How an image is brought to a box, and which part of it a crop keeps: one vocabulary for the
// decoder's thumbnails and the resize and crop operations.
#ifndef MAGPIE_GEOMETRY_H
#define MAGPIE_GEOMETRY_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    /// The whole image fits inside the box; the aspect ratio is kept.
    MAGPIE_FIT_FIT = 0,
    /// The image covers the box and is cropped to it by a gravity.
    MAGPIE_FIT_FILL = 1,
    /// The image covers the box and is not cropped.
    MAGPIE_FIT_COVER = 2,
    /// The image is stretched to the box.
    MAGPIE_FIT_EXACT = 3,
} magpie_fit;

typedef enum {
    MAGPIE_GRAVITY_CENTRE = 0,
    MAGPIE_GRAVITY_NORTH = 1,
    MAGPIE_GRAVITY_SOUTH = 2,
    MAGPIE_GRAVITY_EAST = 3,
    MAGPIE_GRAVITY_WEST = 4,
    /// libvips' smart crop keeping what draws the eye (skin, saturated colour, edges).
    MAGPIE_GRAVITY_ATTENTION = 5,
    /// libvips' smart crop keeping the part with the most entropy.
    MAGPIE_GRAVITY_ENTROPY = 6,
} magpie_gravity;

#ifdef __cplusplus
}
#endif

#endif
