#!/usr/bin/env python3
"""What a Python user would write instead of `magpie fetch`: download each URL and decode it with
Pillow, six at a time, keeping nothing. usage: pillow_fetch.py URL_FILE [BOX]
With BOX, decode as a BOX x BOX thumbnail (JPEG draft mode, then thumbnail()); else full size.
Prints the number of images decoded; the caller measures time and peak memory."""
import io, sys, urllib.request
from concurrent.futures import ThreadPoolExecutor
from PIL import Image

def load(url, box):
    with urllib.request.urlopen(url) as response:
        body = response.read()
    image = Image.open(io.BytesIO(body))
    if box:
        image.draft("RGB", (box, box))
        image.thumbnail((box, box))
    image = image.convert("RGBA")
    return image.size

def main():
    urls = [line.strip() for line in open(sys.argv[1]) if line.strip()]
    box = int(sys.argv[2]) if len(sys.argv) > 2 else None
    with ThreadPoolExecutor(max_workers=6) as pool:
        done = sum(1 for _ in pool.map(lambda url: load(url, box), urls))
    print(done)

main()
