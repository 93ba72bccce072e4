#!/usr/bin/env python3
"""Times Pillow doing what Magpie's processors do, for MagpieBenchmarks --only process.

usage: pillow_processing.py IMAGE.png RUNS
Prints one JSON object: median milliseconds of each operation on the already-decoded image
(an RGB image, as Pillow gives for a JPEG photo).
"""
import json
import statistics
import sys
import time

from PIL import Image, ImageDraw, ImageFilter


def median_ms(runs, body):
    body()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        body()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def rounded(image, radius):
    mask = Image.new("L", image.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, image.width - 1, image.height - 1), radius=radius, fill=255)
    result = image.copy()
    result.putalpha(mask)
    return result


def main():
    path, runs = sys.argv[1], int(sys.argv[2])
    image = Image.open(path).convert("RGB")
    image.load()
    scale = 256 / max(image.size)
    size = (round(image.width * scale), round(image.height * scale))
    print(json.dumps({
        "resize": median_ms(runs, lambda: image.resize(size, Image.Resampling.LANCZOS)),
        "blur": median_ms(runs, lambda: image.filter(ImageFilter.GaussianBlur(4))),
        "round": median_ms(runs, lambda: rounded(image, 32)),
        "version": Image.__version__,
    }))


if __name__ == "__main__":
    main()
