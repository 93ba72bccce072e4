"""Frame count, per-frame durations (ms) and loop count of animated images, read by Pillow:
the independent reference for Magpie's animation tests. Prints one JSON object per file.

Pillow reports the GIF loop extension's value ("repeat n times", absent for none); the line
also gives the number of plays that means (n + 1, 1 when absent, 0 forever), which is what
Magpie's loopCount holds. WebP states the number of plays directly.
"""
import json
import sys

from PIL import Image


def describe(path):
    image = Image.open(path)
    frames = getattr(image, "n_frames", 1)
    durations = []
    for index in range(frames):
        image.seek(index)
        image.load()
        durations.append(int(image.info.get("duration", 0)))
    stated = image.info.get("loop")
    if image.format == "GIF":
        plays = 1 if stated is None else (0 if stated == 0 else stated + 1)
    else:
        plays = 0 if stated is None else stated
    return {"path": path, "format": image.format, "frames": frames, "durations": durations,
            "size": list(image.size), "plays": plays}


def whole_frames(path):
    """Frames Pillow can decode before a truncated file ends."""
    image = Image.open(path)
    count = 0
    try:
        while True:
            image.seek(count)
            image.load()
            count += 1
    except (EOFError, OSError):
        return count


if sys.argv[1] == "--whole-frames":
    print(whole_frames(sys.argv[2]))
else:
    for path in sys.argv[1:]:
        print(json.dumps(describe(path)))
