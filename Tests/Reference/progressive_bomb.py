"""Writes a small progressive JPEG with many pixels: smooth gradients compress to little, while
full-size chroma (4:4:4) makes a decoder hold 6 bytes of coefficients per pixel.

usage: progressive_bomb.py OUT WIDTH HEIGHT
"""
import sys

from PIL import Image

out, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ramp = Image.linear_gradient("L")
red = ramp.resize((width, height), Image.BILINEAR)
green = ramp.rotate(90).resize((width, height), Image.BILINEAR)
blue = ramp.rotate(45).resize((width, height), Image.BILINEAR)
Image.merge("RGB", (red, green, blue)).save(out, "JPEG", quality=90, progressive=True, subsampling=0)
