"""One imgproxy URL path built and signed by PyPI's `imgproxy` builder.

usage: imgproxy_path.py KEY_HEX SALT_HEX SOURCE_URL WIDTH HEIGHT [ADVANCED_OPTION ...]
Prints the path (fit into WIDTH x HEIGHT, with the advanced options before it)."""
import sys

from imgproxy import ImgProxy

key, salt, source, width, height, *advanced = sys.argv[1:]
print(ImgProxy(source, key=key, salt=salt, resizing_type="fit", width=int(width), height=int(height), advanced=advanced)())
