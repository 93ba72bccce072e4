#!/usr/bin/env python3
"""Animated WebPs and their frames as libwebp's own animation decoder composes them (Pillow reads
animated WebP with WebPAnimDecoder), for the tests of Magpie's WebP frame decoding.

usage: pillow_webp_frames.py make FOLDER   writes blended.webp (lossless frames with translucent
                                           pixels that WebPAnimEncoder stores as blended and
                                           disposed sub-rectangles), lossy.webp (opaque lossy
                                           frames) and wide.webp (frames with an Adobe RGB-like
                                           profile), each with NAME.rgba: every frame's RGBA in
                                           order, from Pillow; for wide.webp, wide.srgb.rgba is
                                           those frames converted to sRGB by LittleCMS
       pillow_webp_frames.py frames FILE OUT   FILE's frames' RGBA, in order, into OUT
"""
import io
import os
import sys

from PIL import Image, ImageCms


def frames_rgba(path):
    image = Image.open(path)
    data = bytearray()
    for index in range(getattr(image, "n_frames", 1)):
        image.seek(index)
        data += image.convert("RGBA").tobytes()
    return bytes(data)


def scene(width, height, index, translucent):
    """A moving square over a gradient; with `translucent`, the gradient fades out to the right and the
    square is half see-through, so later frames are blended over earlier ones."""
    frame = Image.new("RGBA", (width, height))
    frame.putdata([((x * 7 + index * 13) % 256, (y * 5) % 256, (x + y + index * 29) % 256,
                    max(0, 255 - x * 255 // width) if translucent else 255)
                   for y in range(height) for x in range(width)])
    square = Image.new("RGBA", (12, 12), (250, 40 + index * 20, 30, 128 if translucent else 255))
    frame.alpha_composite(square, (4 + index * 6, 6 + index * 3))
    return frame


def make(folder):
    width, height = 48, 36
    blended = [scene(width, height, index, True) for index in range(6)]
    blended[0].save(os.path.join(folder, "blended.webp"), save_all=True, append_images=blended[1:], lossless=True,
                    duration=[80, 120, 80, 60, 40, 200], loop=0)
    lossy = [scene(width, height, index, False).convert("RGB") for index in range(6)]
    lossy[0].save(os.path.join(folder, "lossy.webp"), save_all=True, append_images=lossy[1:], quality=80, duration=100, loop=2)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from icc_profiles import wide_icc
    wide = [scene(width, height, index, False).convert("RGB") for index in range(4)]
    wide[0].save(os.path.join(folder, "wide.webp"), save_all=True, append_images=wide[1:], lossless=True, duration=100,
                 icc_profile=wide_icc())
    for name in ["blended", "lossy", "wide"]:
        with open(os.path.join(folder, f"{name}.rgba"), "wb") as out:
            out.write(frames_rgba(os.path.join(folder, f"{name}.webp")))
    written = Image.open(os.path.join(folder, "wide.webp"))
    source = ImageCms.ImageCmsProfile(io.BytesIO(written.info["icc_profile"]))
    srgb = ImageCms.createProfile("sRGB")
    converted = bytearray()
    for index in range(written.n_frames):
        written.seek(index)
        converted += ImageCms.profileToProfile(written.convert("RGB"), source, srgb, outputMode="RGB").convert("RGBA").tobytes()
    with open(os.path.join(folder, "wide.srgb.rgba"), "wb") as out:
        out.write(bytes(converted))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        make(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "frames":
        with open(sys.argv[3], "wb") as out:
            out.write(frames_rgba(sys.argv[2]))
    else:
        sys.exit(__doc__)
