#!/usr/bin/env python3
"""Ultra HDR versions of a folder of photos (../shared/tools/make-photos' JPEGs), as phones write
them: the photo taken to linear light with its highlights lifted up to four times SDR white,
encoded by libultrahdr (PyPI's imagecodecs, `ultrahdr_encode`) into an SDR JPEG with a gain map
in MPF (Display P3, as Android phones' cameras write). Names and sizes are kept, so a benchmark
that reads `pNNN.jpg` reads the Ultra HDR files instead.

usage: make-ultrahdr-photos.py SOURCE_DIR OUT_DIR
Needs: Pillow, numpy, imagecodecs (scripts/install-dependencies installs it).
"""
import os
import sys

import imagecodecs
import numpy
from PIL import Image

source, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
for name in sorted(n for n in os.listdir(source) if n.endswith(".jpg")):
    target = os.path.join(out, name)
    if os.path.exists(target):
        continue
    srgb = numpy.asarray(Image.open(os.path.join(source, name)).convert("RGB"), numpy.float32) / 255
    linear = numpy.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    # Highlights above 70% of white are lifted, up to 4x at white, as an HDR capture keeps them.
    luminance = linear @ numpy.array([0.2126, 0.7152, 0.0722], numpy.float32)
    lift = 1 + 3 * numpy.clip((luminance - 0.7) / 0.3, 0, 1) ** 2
    hdr = numpy.ones(linear.shape[:2] + (4,), numpy.float16)
    hdr[..., :3] = linear * lift[..., None]
    with open(target, "wb") as file:
        file.write(imagecodecs.ultrahdr_encode(hdr, gamut=imagecodecs.ULTRAHDR.CG.DISPLAY_P3))
    print(name, flush=True)
