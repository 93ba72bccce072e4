"""The pixels of an image as its file stores them, without its EXIF orientation applied (Pillow
does not apply it on open), written as an RGBA PNG.

Usage: pillow_stored_pixels.py IN OUT.png
"""
import sys

from PIL import Image

Image.open(sys.argv[1]).convert("RGBA").save(sys.argv[2])
