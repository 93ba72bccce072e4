"""Minimal ICC v2 display profiles, written here (not copied from anywhere), and images that
carry them with their sRGB rendering by Pillow's LittleCMS as the independent reference.

Usage: icc_profiles.py OUTDIR
Writes grey.jpg (a grey ramp with a gamma-1.8 grey profile), wide.jpg (an RGB ramp with an
Adobe RGB (1998)-like profile: its primaries, gamma 563/256) and wide-alpha.png (the same with a
transparent corner), each with NAME.ref.png: the pixels converted to sRGB by ImageCms, and
NAME.raw.png: the same numbers with no profile."""
import io
import os
import struct
import sys


def s15(value):
    return struct.pack(">i", round(value * 65536))


def padded(data):
    return data + b"\0" * (-len(data) % 4)


def xyz(x, y, z):
    return b"XYZ \0\0\0\0" + s15(x) + s15(y) + s15(z)


def curve(gamma):
    return padded(b"curv\0\0\0\0" + struct.pack(">IH", 1, round(gamma * 256)))


def profile(space, name, tags):
    """A display profile: the header, a description, a copyright, D50 white and `tags`."""
    text = name.encode()
    tags = [
        (b"desc", padded(b"desc\0\0\0\0" + struct.pack(">I", len(text) + 1) + text + b"\0" + b"\0" * 8 + b"\0\0\0" + b"\0" * 67)),
        (b"wtpt", xyz(0.9642, 1.0, 0.8249)),
        (b"cprt", padded(b"text\0\0\0\0" + b"made for a test\0")),
    ] + tags
    offset = 128 + 4 + 12 * len(tags)
    table, body = struct.pack(">I", len(tags)), b""
    for signature, data in tags:
        table += signature + struct.pack(">II", offset + len(body), len(data))
        body += data
    header = (struct.pack(">I", offset + len(body)) + b"\0" * 4 + struct.pack(">I", 0x02100000) + b"mntr" + space + b"XYZ "
              + b"\0" * 12 + b"acsp" + b"\0" * 24 + struct.pack(">I", 0) + s15(0.9642) + s15(1.0) + s15(0.8249) + b"\0" * 48)
    assert len(header) == 128
    return header + table + body


def grey_icc(gamma):
    """Grey whose tone curve is the power `gamma`."""
    return profile(b"GRAY", "Grey, gamma %.2f" % gamma, [(b"kTRC", curve(gamma))])


def wide_icc():
    """Adobe RGB (1998)'s primaries (adapted to D50) and tone curve."""
    gamma = 563 / 256
    return profile(b"RGB ", "Wide gamut for a test", [
        (b"rXYZ", xyz(0.6097, 0.3111, 0.0195)), (b"gXYZ", xyz(0.2053, 0.6257, 0.0609)), (b"bXYZ", xyz(0.1492, 0.0632, 0.7446)),
        (b"rTRC", curve(gamma)), (b"gTRC", curve(gamma)), (b"bTRC", curve(gamma)),
    ])


def main():
    from PIL import Image, ImageCms
    folder = sys.argv[1]
    srgb = ImageCms.createProfile("sRGB")
    size = 64
    grey = Image.new("L", (size, size))
    grey.putdata([round((x + y) * 255 / (2 * size - 2)) for y in range(size) for x in range(size)])
    rgb = Image.new("RGB", (size, size))
    rgb.putdata([(round(x * 255 / (size - 1)), round(y * 255 / (size - 1)), 200 - x) for y in range(size) for x in range(size)])
    for name, image, icc, extension in [("grey", grey, grey_icc(1.8), "jpg"), ("wide", rgb, wide_icc(), "jpg"), ("wide-alpha", rgb, wide_icc(), "png")]:
        if name == "wide-alpha":
            image = image.convert("RGBA")
            image.putalpha(Image.new("L", (size, size), 255))
            image.getchannel("A").paste(0, (0, 0, 16, 16))
        path = os.path.join(folder, f"{name}.{extension}")
        # Lossless JPEG is not Pillow's: quality 100 without subsampling keeps the ramp within a level.
        options = {"quality": 100, "subsampling": 0} if extension == "jpg" else {}
        image.save(path, icc_profile=icc, **options)
        written = Image.open(path)
        written.load()
        source = ImageCms.ImageCmsProfile(io.BytesIO(written.info["icc_profile"]))
        if written.mode == "RGBA":
            alpha = written.getchannel("A")
            converted = ImageCms.profileToProfile(written.convert("RGB"), source, srgb, outputMode="RGB").convert("RGBA")
            converted.putalpha(alpha)
        else:
            converted = ImageCms.profileToProfile(written, source, srgb, outputMode="RGB")
        converted.save(os.path.join(folder, f"{name}.ref.png"))
        # The same numbers with no profile, read as sRGB: what ignoring the profile would give.
        raw = written.copy()
        raw.info.pop("icc_profile", None)
        raw.save(os.path.join(folder, f"{name}.raw.png"), icc_profile=None)


if __name__ == "__main__":
    main()
