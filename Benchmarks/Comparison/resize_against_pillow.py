"""Compares `magpie fetch --process resize:...` outputs with Pillow's full-precision Lanczos
resize of each source (decoded by Pillow, which Magpie does not use), by SSIMULACRA2 (PyPI
`ssimulacra2`) and mean absolute difference.

    python3 resize_against_pillow.py SOURCE_DIR OUTPUT_DIR fit|fill

A fill's reference is the Lanczos cover of the box cut at its centre, the spare pixel after it
(the geometry `Resize` documents); a fit's is the Lanczos resize to the output's size.
"""
import os
import statistics
import sys

import numpy as np
from PIL import Image, ImageOps
from ssimulacra2 import compute_ssimulacra2


def reference(source, size, mode):
    if mode == "fit":
        return source.resize(size, Image.LANCZOS, reducing_gap=None)
    scale = max(size[0] / source.width, size[1] / source.height)
    cover = (round(source.width * scale), round(source.height * scale))
    covered = source.resize(cover, Image.LANCZOS, reducing_gap=None)
    left, top = (cover[0] - size[0]) // 2, (cover[1] - size[1]) // 2
    return covered.crop((left, top, left + size[0], top + size[1]))


sources, outputs, mode = sys.argv[1], sys.argv[2], sys.argv[3]
scores, differences = [], []
for name in sorted(os.listdir(outputs)):
    stem = name.rsplit(".", 1)[0]
    source = ImageOps.exif_transpose(Image.open(os.path.join(sources, stem + ".jpg"))).convert("RGB")
    output = Image.open(os.path.join(outputs, name)).convert("RGB")
    expected = reference(source, output.size, mode)
    expected.save("/tmp/resize-reference.png")
    output.save("/tmp/resize-output.png")
    scores.append(compute_ssimulacra2("/tmp/resize-reference.png", "/tmp/resize-output.png"))
    differences.append(float(np.abs(np.asarray(expected, float) - np.asarray(output, float)).mean()))
print(f"{mode}: {len(scores)} images, SSIMULACRA2 median {statistics.median(scores):.1f} (lowest {min(scores):.1f}), "
      f"mean difference median {statistics.median(differences):.2f} levels (at most {max(differences):.2f})")
