"""EXIF Copyright with Pillow, the independent side of keep_copyright's test.

usage: exif_copyright.py make PATH TEXT   writes a 640x480 JPEG whose EXIF has Copyright TEXT,
                                          an Artist and a camera Model
       exif_copyright.py read PATH        prints the file's EXIF tags as JSON (names: values)
"""
import json
import sys

from PIL import ExifTags, Image

if sys.argv[1] == "make":
    image = Image.new("RGB", (640, 480), (40, 120, 200))
    exif = Image.Exif()
    exif[ExifTags.Base.Copyright] = sys.argv[3]
    exif[ExifTags.Base.Artist] = "Someone"
    exif[ExifTags.Base.Model] = "Camera"
    image.save(sys.argv[2], "JPEG", quality=90, exif=exif)
else:
    with Image.open(sys.argv[2]) as image:
        tags = {ExifTags.TAGS.get(tag, str(tag)): str(value) for tag, value in image.getexif().items()}
    json.dump(tags, sys.stdout)
