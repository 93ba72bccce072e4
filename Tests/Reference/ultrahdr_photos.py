"""Ultra HDR JPEGs made by an encoder Magpie does not use (libultrahdr, in PyPI's imagecodecs),
a stereo camera's MPO made by Pillow, and for each the upright pixels an independent decoder
gives: libultrahdr's SDR rendition of the Ultra HDR files (in sRGB through their ICC profile,
with Pillow's LittleCMS), Pillow's first image of the MPO.

Usage:
  ultrahdr_photos.py make FOLDER
      Writes NAME.jpg and NAME-reference.png for each file; prints a JSON object
      {NAME: {"file", "reference", "width", "height", "orientation", "gain_map"}}, the size
      upright.
  ultrahdr_photos.py compare REFERENCE.png OUTPUT...
      Prints a JSON list, one object an output: its "format" and "width"/"height" as Pillow
      reads it, "error", the mean absolute difference (0-255) from the reference resized to
      its size, and "turned", the same against the reference turned half a turn, which tells
      that the picture can show a wrong orientation at all.
"""
import io
import json
import os
import struct
import sys

import imagecodecs
import numpy
from PIL import Image, ImageCms

# EXIF orientation -> what makes the stored pixels upright (Pillow's ImageOps.exif_transpose).
UPRIGHT = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}

# name, stored width, stored height, EXIF orientation (0: no EXIF at all), the HDR image's
# gamut (libultrahdr's SDR image then carries a Display P3 or an sRGB profile)
PHOTOS = [
    ("plain", 400, 300, 0, imagecodecs.ULTRAHDR.CG.DISPLAY_P3),
    ("portrait-6", 640, 480, 6, imagecodecs.ULTRAHDR.CG.DISPLAY_P3),
    ("upside-down-3", 320, 240, 3, imagecodecs.ULTRAHDR.CG.BT_709),
    ("phone-8", 2016, 1512, 8, imagecodecs.ULTRAHDR.CG.DISPLAY_P3),
]


def scene(width, height):
    """Linear light with highlights above SDR white, so the gain map has work to do: a red ramp
    across, a green ramp down, and a bright block in one corner, none of it symmetric."""
    y, x = numpy.mgrid[0:height, 0:width].astype(numpy.float32)
    pixels = numpy.ones((height, width, 4), numpy.float16)
    pixels[..., 0] = 0.05 + 3.0 * (x / width) ** 2
    pixels[..., 1] = 0.05 + 0.9 * (y / height)
    pixels[..., 2] = 0.2
    block = (x < width / 4) & (y < height / 3)
    pixels[..., 2][block] = 4.0
    return pixels


def with_orientation(jpeg, orientation):
    """The file with an EXIF APP1 right after SOI. Everything after moves by the segment's
    length; MPF offsets count from the MPF header, which moves too, but the primary image's
    MP entry gives its size, which grows by that length."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    payload = exif.tobytes()
    segment = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    data = bytearray(jpeg[:2] + segment + jpeg[2:])
    at = 2
    while data[at] == 0xFF and data[at + 1] not in (0xDA, 0xD9):
        length = struct.unpack(">H", data[at + 2 : at + 4])[0]
        if data[at + 1] == 0xE2 and data[at + 4 : at + 8] == b"MPF\x00":
            tiff = at + 8
            endian = "<" if data[tiff : tiff + 2] == b"II" else ">"
            ifd = tiff + struct.unpack(endian + "I", data[tiff + 4 : tiff + 8])[0]
            for index in range(struct.unpack(endian + "H", data[ifd : ifd + 2])[0]):
                entry = ifd + 2 + 12 * index
                if struct.unpack(endian + "H", data[entry : entry + 2])[0] == 0xB002:
                    first = tiff + struct.unpack(endian + "I", data[entry + 8 : entry + 12])[0]
                    size = struct.unpack(endian + "I", data[first + 4 : first + 8])[0]
                    data[first + 4 : first + 8] = struct.pack(endian + "I", size + len(segment))
            return bytes(data)
        at += 2 + length
    raise SystemExit("no MPF segment before the scan")


def in_srgb(image, profile):
    """The pixels in sRGB, as Magpie (and imgproxy, and a browser) shows them: through the
    file's ICC profile, with Pillow's LittleCMS."""
    if not profile:
        return image
    source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
    return ImageCms.profileToProfile(image, source, ImageCms.createProfile("sRGB"), outputMode="RGB")


def upright(image, orientation):
    method = UPRIGHT.get(orientation)
    return image.transpose(method) if method is not None else image


def make(folder):
    made = {}
    for name, width, height, orientation, gamut in PHOTOS:
        jpeg = imagecodecs.ultrahdr_encode(scene(width, height), gamut=gamut)
        if orientation:
            jpeg = with_orientation(jpeg, orientation)
        # libultrahdr still finds the gain map in the file as written, and its SDR rendition is
        # the primary JPEG's pixels.
        assert imagecodecs.ultrahdr_decode(jpeg).shape == (height, width, 4)
        sdr = Image.fromarray(imagecodecs.ultrahdr_decode(jpeg, dtype=numpy.uint8)).convert("RGB")
        reference = upright(in_srgb(sdr, Image.open(io.BytesIO(jpeg)).info.get("icc_profile")), orientation)
        write(folder, name, jpeg, reference)
        made[name] = entry(name, reference, orientation, True)
    # A stereo pair as a 3D camera writes it: two JPEGs in MPF, the left (first) one reddish.
    y, x = numpy.mgrid[0:240, 0:320]
    left = numpy.stack([120 + x * 0.4, 40 + y * 0.5, 30 + 0 * x], axis=-1).astype(numpy.uint8)
    right = numpy.stack([20 + 0 * x, 60 + y * 0.3, 200 - x * 0.2], axis=-1).astype(numpy.uint8)
    mpo = io.BytesIO()
    Image.fromarray(left).save(mpo, "MPO", save_all=True, append_images=[Image.fromarray(right)], quality=95)
    assert Image.open(io.BytesIO(mpo.getvalue())).n_frames == 2
    write(folder, "stereo-mpo", mpo.getvalue(), Image.open(io.BytesIO(mpo.getvalue())).convert("RGB"))
    made["stereo-mpo"] = entry("stereo-mpo", Image.fromarray(left), 0, False)
    print(json.dumps(made))


def write(folder, name, data, reference):
    with open(os.path.join(folder, name + ".jpg"), "wb") as file:
        file.write(data)
    reference.save(os.path.join(folder, name + "-reference.png"))


def entry(name, reference, orientation, gain_map):
    return {
        "file": name + ".jpg", "reference": name + "-reference.png", "width": reference.width,
        "height": reference.height, "orientation": orientation, "gain_map": gain_map,
    }


def difference(a, b):
    return float(numpy.abs(numpy.asarray(a, numpy.float32) - numpy.asarray(b, numpy.float32)).mean())


def compare(reference_path, outputs):
    reference = Image.open(reference_path).convert("RGB")
    results = []
    for path in outputs:
        output = Image.open(path)
        shown = output.convert("RGB")
        resized = reference.resize(shown.size, Image.Resampling.LANCZOS)
        turned = reference.transpose(Image.Transpose.ROTATE_180).resize(shown.size, Image.Resampling.LANCZOS)
        results.append({
            "format": output.format, "width": shown.width, "height": shown.height,
            "error": difference(shown, resized), "turned": difference(shown, turned),
        })
    print(json.dumps(results))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    elif sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3:])
    else:
        raise SystemExit(__doc__)
