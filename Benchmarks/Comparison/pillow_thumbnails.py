#!/usr/bin/env python3
"""What a Python user would write instead of `magpie fetch --thumbnail BOXxBOX --format webp`
over a folder of JPEGs: Pillow reads each file (JPEG draft mode, then thumbnail()) and writes a
WebP at quality 80, one at a time. usage: pillow_thumbnails.py SOURCE_DIR OUT_DIR [BOX]
The caller measures time and peak memory (Benchmarks/Comparison/alternate.py)."""
import os
import sys

from PIL import Image

source, out = sys.argv[1], sys.argv[2]
box = int(sys.argv[3]) if len(sys.argv) > 3 else 256
os.makedirs(out, exist_ok=True)
for name in sorted(n for n in os.listdir(source) if n.endswith(".jpg")):
    image = Image.open(os.path.join(source, name))
    image.draft("RGB", (box, box))
    image = image.convert("RGB")
    image.thumbnail((box, box))
    image.save(os.path.join(out, name[:-4] + ".webp"), quality=80)
