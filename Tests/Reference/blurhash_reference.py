"""BlurHash of an RGBA8 file by PyPI's `blurhash` (pure Python), the reference Magpie's encoder
is compared with. Arguments: path of raw RGBA8 bytes, width, height, components x, components y."""
import sys

import blurhash

path, width, height, cx, cy = sys.argv[1], *map(int, sys.argv[2:6])
data = open(path, "rb").read()
rows = [[list(data[(y * width + x) * 4:(y * width + x) * 4 + 3]) for x in range(width)] for y in range(height)]
print(blurhash.encode(rows, cx, cy))
