#!/usr/bin/env python3
"""Times Pillow resizing an animated GIF to a 128 px box and writing it as animated WebP, for
MagpieBenchmarks --only animation: what a Python user would write (ImageSequence, resize,
save with every frame's duration and the loop count).

usage: pillow_animation.py IN.gif OUT.webp RUNS
Prints one JSON object: the median milliseconds, the peak resident memory of this process
(ru_maxrss, kB) and Pillow's version.
"""
import json
import resource
import statistics
import sys
import time

import PIL
from PIL import Image, ImageSequence


def convert(source, target):
    image = Image.open(source)
    frames, durations = [], []
    for frame in ImageSequence.Iterator(image):
        rgba = frame.convert("RGBA")
        scale = min(128 / rgba.width, 128 / rgba.height)
        frames.append(rgba.resize((round(rgba.width * scale), round(rgba.height * scale)), Image.LANCZOS))
        durations.append(frame.info.get("duration", 0))
    frames[0].save(target, save_all=True, append_images=frames[1:], duration=durations,
                   loop=image.info.get("loop", 0), quality=80)


def main():
    source, target, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        convert(source, target)
        times.append((time.perf_counter() - start) * 1000)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"milliseconds": statistics.median(times), "peak_kb": peak, "version": PIL.__version__}))


main()
