"""Makes the source images the peer expectation rows name (Tests/PeerExpectations/*.tsv).

Usage: peer_sources.py OUTDIR SPEC [SPEC...]

A SPEC is FORMAT:WIDTHxHEIGHT[:FEATURE...] as the rows write it (an SVG's sides may carry a
physical unit: svg:10inx13in) (features: alpha, grey,
orientation=N, frames=N, cmyk, 16bit, interlaced, rle: a BMP coded RLE8, bpp=N: a BMP whose header
declares N bits a pixel, level=N: a grey image of that one level, icc=gammaG: with a grey ICC profile
whose tone curve is the power G, as a fixture's embedded profile). Every image is the same gradient: red is x and
green is y (0 to 255 across the stored image), blue 128, so the part of the source an answer shows
can be read back from its pixels; with alpha, the top-left eighth is transparent. Two features
draw a fixture's shapes instead (for trimming): bands=RRGGBB[AA]xH-... (full-width bands from the
top, H rows each) and rings=L-L-...,NEAR,FAR (grey frames from the outside in, NEAR pixels wide
on the left and top, FAR on the right and bottom, black inside). Prints a JSON
object from each SPEC to the file written, or to null when this machine cannot write that format.
"""
import io
import json
import os
import subprocess
import sys

from PIL import Image

from icc_profiles import grey_icc
from pillow_bitmaps import write_rle


def gradient(width, height, features):
    image = Image.new("RGB", (width, height))
    red = [round(x * 255 / max(1, width - 1)) for x in range(width)]
    green = [round(y * 255 / max(1, height - 1)) for y in range(height)]
    image.putdata([(red[x], green[y], 128) for y in range(height) for x in range(width)])
    if "grey" in features:
        image = image.convert("L")
    if "alpha" in features:
        alpha = Image.new("L", (width, height), 255)
        alpha.paste(0, (0, 0, max(1, width // 8), max(1, height // 8)))
        image = image.convert("LA" if "grey" in features else "RGBA")
        image.putalpha(alpha)
    if "cmyk" in features:
        image = image.convert("CMYK")
    return image


def bands(width, height, written):
    image = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    top = 0
    for band in written.split("-"):
        colour, rows = band.split("x")
        rgba = tuple(int(colour[i:i + 2], 16) for i in range(0, len(colour), 2))
        image.paste(rgba if len(rgba) == 4 else rgba + (255,), (0, top, width, min(height, top + int(rows))))
        top += int(rows)
    return image


def rings(width, height, written):
    levels, near, far = written.split(",")
    near, far = int(near), int(far)
    image = Image.new("L", (width, height), 0)
    for index, level in enumerate(levels.split("-")):
        inner = Image.new("L", (width - index * (near + far), height - index * (near + far)), int(level))
        image.paste(inner, (index * near, index * near))
    inside = len(levels.split("-"))
    image.paste(0, (inside * near, inside * near, width - inside * far, height - inside * far))
    return image


def exif_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def frames_of(image, count):
    frames = []
    for index in range(count):
        frame = image.copy()
        # Each frame differs: its blue band steps.
        bands = frame.split()
        if len(bands) >= 3:
            bands = list(bands)
            bands[2] = bands[2].point(lambda value, step=index: (value + 40 * step) % 256)
            frame = Image.merge(frame.mode, bands)
        frames.append(frame)
    return frames


def physical_svg(size, path):
    """The gradient SVG with its width and height in a physical unit (`10inx13in`, `5cmx2cm`)."""
    width, height = size.split("x")
    with open(path, "w") as svg:
        svg.write(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 100 100" preserveAspectRatio="none">'
            f'<defs><linearGradient id="g"><stop offset="0" stop-color="#000080"/><stop offset="1" stop-color="#ff0080"/></linearGradient></defs>'
            f'<rect width="100" height="100" fill="url(#g)"/></svg>')
    return path


def vips(*arguments):
    subprocess.run(["vips", *arguments], check=True, capture_output=True)


def make(spec, path_without_extension):
    parts = spec.split(":")
    kind, size, features = parts[0], parts[1], parts[2:]
    if kind == "svg" and not size.replace("x", "").isdigit():
        # Sized in physical units (svg:10inx13in), as a fixture's SVG may be: drawn at a DPI.
        return physical_svg(size, f"{path_without_extension}.svg")
    width, height = (int(side) for side in size.split("x"))
    named = dict(feature.split("=", 1) for feature in features if "=" in feature)
    image = gradient(width, height, features)
    if "bands" in named:
        image = bands(width, height, named["bands"])
    if "rings" in named:
        image = rings(width, height, named["rings"])
    if "level" in named:
        image = Image.new("L", (width, height), int(named["level"]))
    extension = {"jpeg": "jpg", "heic": "heic"}.get(kind, kind)
    path = f"{path_without_extension}.{extension}"
    orientation = int(named.get("orientation", 0))
    frames = int(named.get("frames", 1))
    if kind == "bmp" and "rle" in features:
        write_rle(image.convert("RGB").quantize(256), 8, path)
        return path
    if kind == "jxl":
        # libjxl's own encoder, from the same pixels as a PNG (16-bit and grey kept).
        png = make(":".join(["png"] + parts[1:]), f"{path_without_extension}.src")
        subprocess.run(["cjxl", png, path, "--quiet"], check=True, capture_output=True)
        os.remove(png)
        return path
    if kind == "svg":
        with open(path, "w") as svg:
            svg.write(
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
                f'<defs><linearGradient id="g"><stop offset="0" stop-color="#000080"/><stop offset="1" stop-color="#ff0080"/></linearGradient></defs>'
                f'<rect width="{width}" height="{height}" fill="url(#g)"/></svg>')
        return path
    if "16bit" in features and kind in ("png", "tiff"):
        eight = f"{path_without_extension}.8.png"
        image.save(eight)
        scaled = f"{path_without_extension}.16.v"
        wide = f"{path_without_extension}.16u.v"
        vips("linear", eight, scaled, "257", "0")
        vips("cast", scaled, wide, "ushort")
        # Saved as what it is: libvips writes an image whose interpretation is sRGB or B_W with
        # 8 bits a sample, whatever its band format.
        vips("copy", wide, path, "--interpretation", "grey16" if "grey" in features else "rgb16")
        for made in (eight, scaled, wide):
            os.remove(made)
        return path
    if kind == "heic" or kind == "avif" and "alpha" in features:
        png = f"{path_without_extension}.src.png"
        image.save(png)
        command = ["heif-enc", "--quality", "90", "-o", path, png]
        if kind == "avif":
            command.insert(1, "--avif")
        subprocess.run(command, check=True, capture_output=True)
        os.remove(png)
        return path
    options = {}
    if orientation:
        options["exif"] = exif_orientation(orientation)
    if frames > 1:
        sequence = frames_of(image, frames)
        sequence[0].save(path, save_all=True, append_images=sequence[1:], duration=100, loop=0, **options)
        return path
    if kind == "jpeg":
        options["quality"] = 95
    if "icc" in named:
        options["icc_profile"] = grey_icc(float(named["icc"].removeprefix("gamma")))
    if kind == "ico":
        options["sizes"] = [(width, height)]
    if kind == "gif" and "alpha" in features:
        image = image.convert("RGBA")
    image.save(path, **options)
    if kind == "bmp" and "bpp" in named:
        # A header that declares another bit depth than the pixels were written with.
        with open(path, "r+b") as bitmap:
            bitmap.seek(28)
            bitmap.write(int(named["bpp"]).to_bytes(2, "little"))
    return path


def main():
    folder = sys.argv[1]
    made = {}
    for index, spec in enumerate(sys.argv[2:]):
        try:
            made[spec] = os.path.basename(make(spec, os.path.join(folder, f"source-{index}")))
        except (KeyError, ValueError, OSError, subprocess.CalledProcessError):
            made[spec] = None
    print(json.dumps(made))


main()
