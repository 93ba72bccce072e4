#!/usr/bin/env python3
"""BMP and ICO files written by Pillow, with Pillow's own reading of each as RGBA, for the tests of
Magpie's bitmap decoding; and Pillow's reading of files Magpie wrote.

usage: pillow_bitmaps.py make FOLDER   writes NAME.bmp / NAME.ico and NAME.rgba (Pillow's RGBA
                                       pixels) for every variant; prints {name: [file, w, h]}
       pillow_bitmaps.py read FILE     prints {"format", "mode", "width", "height"} and the RGBA
                                       pixels as hex
       pillow_bitmaps.py png FILE OUT  FILE as an RGBA PNG
       pillow_bitmaps.py grey FILE OUT FILE as a greyscale PNG
"""
import json
import os
import struct
import sys

from PIL import Image


def gradient(width, height):
    image = Image.new("RGBA", (width, height))
    image.putdata([(x * 255 // max(1, width - 1), y * 255 // max(1, height - 1), (x * y) % 256, 255 if x < width // 2 else 96)
                   for y in range(height) for x in range(width)])
    return image


def make(folder):
    source = gradient(97, 61)
    variants = {
        "bmp-1bit": (source.convert("1"), "bmp", {}),
        "bmp-4bit": (source.convert("RGB").quantize(16), "bmp", {}),
        "bmp-8bit": (source.convert("RGB").quantize(256), "bmp", {}),
        "bmp-grey": (source.convert("L"), "bmp", {}),
        "bmp-24bit": (source.convert("RGB"), "bmp", {}),
        "bmp-32bit": (source, "bmp", {}),
        "ico-png": (source, "ico", {"sizes": [(16, 16), (97, 61)]}),
        "ico-bitmap": (source, "ico", {"sizes": [(32, 32), (48, 48)], "bitmap_format": "bmp"}),
        "ico-bitmap-opaque": (source.convert("RGB"), "ico", {"sizes": [(48, 48)], "bitmap_format": "bmp"}),
    }
    made = {}
    for name, (image, kind, options) in variants.items():
        path = os.path.join(folder, f"{name}.{kind}")
        image.save(path, **options)
        if name == "bmp-8bit":
            for bits in (8, 4):
                coded = os.path.join(folder, f"bmp-rle{bits}.bmp")
                write_rle(image if bits == 8 else source.convert("RGB").quantize(16), bits, coded)
                variants_read(coded, f"bmp-rle{bits}", folder, made)
        if name == "ico-bitmap-opaque":
            masked = os.path.join(folder, "ico-masked.ico")
            write_masked(path, masked)
            variants_read(masked, "ico-masked", folder, made)
        variants_read(path, name, folder, made)
    print(json.dumps(made))


def write_rle(image, bits, path):
    """A palette image as a run-length-coded BMP (RLE8 or RLE4), which Pillow reads but does not
    write: runs of one index, literal stretches, a delta that skips pixels, then end of bitmap."""
    width, height = image.size
    indices = list(image.tobytes())
    palette = image.getpalette()[:3 * (1 << bits)]
    palette += [0] * (3 * (1 << bits) - len(palette))
    coded = bytearray()
    for row in range(height - 1, -1, -1):
        line = indices[row * width:(row + 1) * width]
        x = 0
        if row == height // 2:
            coded += bytes([0, 2, 5, 0])  # a delta: five pixels left as index 0
            x = 5
        while x < width:
            run = 1
            while x + run < width and run < 255 and line[x + run] == line[x]:
                run += 1
            if run >= 3 or width - x < 3:
                coded += bytes([run, line[x] if bits == 8 else line[x] << 4 | line[x]])
                x += run
                continue
            stretch = min(width - x, 40)
            values = line[x:x + stretch]
            if bits == 8:
                literal = bytes(values)
            else:
                padded = values + [0] * (len(values) % 2)
                literal = bytes(padded[i] << 4 | padded[i + 1] for i in range(0, len(padded), 2))
            coded += bytes([0, stretch]) + literal + (b"\0" if len(literal) % 2 else b"")
            x += stretch
        coded += bytes([0, 0])
    coded += bytes([0, 1])
    colours = b"".join(bytes([palette[i + 2], palette[i + 1], palette[i], 0]) for i in range(0, len(palette), 3))
    offset = 14 + 40 + len(colours)
    header = b"BM" + struct.pack("<IHHI", offset + len(coded), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, bits, 1 if bits == 8 else 2, len(coded), 2835, 2835, 1 << bits, 0)
    open(path, "wb").write(header + info + colours + bytes(coded))


def write_masked(path, masked):
    """The 24-bit icon with its transparency mask set over a diagonal band: those pixels are
    transparent by the mask alone. The entry ends where its mask does (rows of 4-byte multiples
    right after the colour rows), so that readers that find the mask from the entry's end and
    from its start agree."""
    data = bytearray(open(path, "rb").read())
    size, offset = struct.unpack("<II", data[14:22])
    header, width, doubled_height, _, bits = struct.unpack("<IiiHH", data[offset:offset + 16])
    height = doubled_height // 2
    colour_row = (width * bits + 31) // 32 * 4
    mask_row = (width + 31) // 32 * 4
    mask = offset + header + colour_row * height
    for row in range(height):
        for x in range(width):
            if (x + row) % 7 < 3:
                data[mask + row * mask_row + x // 8] |= 0x80 >> (x % 8)
    data = data[:mask + mask_row * height]
    data[14:18] = struct.pack("<I", len(data) - offset)
    open(masked, "wb").write(bytes(data))


def variants_read(path, name, folder, made):
    """Pillow's reading of a file, as RGBA, beside it."""
    pixels = largest(Image.open(path)).convert("RGBA")
    with open(os.path.join(folder, f"{name}.rgba"), "wb") as out:
        out.write(pixels.tobytes())
    made[name] = [os.path.basename(path), pixels.width, pixels.height]


def largest(image):
    """An icon read at its largest entry, as Magpie reads it."""
    if image.format == "ICO":
        image.size = max(image.info.get("sizes", {image.size}), key=lambda size: size[0] * size[1])
    return image


def read(path):
    image = largest(Image.open(path))
    print(json.dumps({"format": image.format, "mode": image.mode, "width": image.width, "height": image.height,
                      "rgba": image.convert("RGBA").tobytes().hex()}))


if __name__ == "__main__":
    if sys.argv[1] in ("png", "grey"):
        Image.open(sys.argv[2]).convert("RGBA" if sys.argv[1] == "png" else "L").save(sys.argv[3])
    else:
        {"make": make, "read": read}[sys.argv[1]](sys.argv[2])
