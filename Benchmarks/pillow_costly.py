#!/usr/bin/env python3
"""Times Pillow doing what MagpieBenchmarks --only costly times Magpie doing: from a JPEG file to
a JPEG at quality 80, with one costly option in between.

usage: pillow_costly.py PHOTO.jpg BORDERED.jpg MARK.png RUNS MAX_BYTES
Prints one JSON object: the median milliseconds of each, and Pillow's version.
"""
import io
import json
import statistics
import sys
import time

import PIL
from PIL import Image, ImageChops, ImageFilter


def median_ms(runs, body):
    body()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        body()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def save(image, quality=80):
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality)
    return out.getvalue()


def main():
    photo, bordered, mark_path, runs, max_bytes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    mark = Image.open(mark_path).convert("RGBA")
    # Half opacity, as the Magpie side asks.
    mark.putalpha(mark.getchannel("A").point(lambda a: a // 2))

    def baseline():
        save(Image.open(photo).convert("RGB"))

    def trim():
        image = Image.open(bordered).convert("RGB")
        background = Image.new("RGB", image.size, image.getpixel((0, 0)))
        difference = ImageChops.difference(image, background).convert("L").point(lambda v: 255 if v > 10 else 0)
        save(image.crop(difference.getbbox() or (0, 0, image.width, image.height)))

    def watermark():
        image = Image.open(photo).convert("RGB")
        image.paste(mark, (image.width - mark.width - 20, image.height - mark.height - 20), mark)
        save(image)

    def fit_bytes():
        # imgproxy's steps, as Magpie takes them: a quarter, half or three quarters of the quality.
        image = Image.open(photo).convert("RGB")
        quality = 90
        while True:
            data = save(image, quality)
            if len(data) <= max_bytes or quality <= 10:
                return data
            excess = len(data) / max_bytes
            factor = 0.25 if excess > 3 else 0.5 if excess > 1.5 else 0.75
            quality = max(1, min(quality - 1, round(quality * factor)))

    def sharpen():
        save(Image.open(photo).convert("RGB").filter(ImageFilter.UnsharpMask(radius=1, percent=100, threshold=0)))

    times = {name: median_ms(runs, body) for name, body in
             [("baseline", baseline), ("trim", trim), ("watermark", watermark), ("max_bytes", fit_bytes), ("sharpen", sharpen)]}
    times["version"] = PIL.__version__
    json.dump(times, sys.stdout)


if __name__ == "__main__":
    main()
