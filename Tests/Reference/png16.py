"""16-bit PNGs written and read with zlib alone, independent of libvips and Pillow (which
reads 16-bit colour as 8 bits).

  png16.py write PATH WIDTH HEIGHT COLOUR   COLOUR: rgba, rgb or grey; samples follow a fixed
                                            pattern that no 8-bit image can hold
  png16.py read PATH                        prints {"bit_depth", "colour_type", "width",
                                            "height", "samples": [every sample, row by row]}
"""
import json
import struct
import sys
import zlib

CHANNELS = {"grey": (0, 1), "rgb": (2, 3), "rgba": (6, 4)}


def sample(x, y, channel):
    # Odd multiples and offsets: most values are not multiples of 257, so narrowing shows.
    return (x * 4099 + y * 2311 + channel * 13001 + 7) % 65536


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def write(path, width, height, colour):
    colour_type, channels = CHANNELS[colour]
    rows = b""
    for y in range(height):
        rows += b"\0" + b"".join(struct.pack(">H", sample(x, y, c)) for x in range(width) for c in range(channels))
    header = struct.pack(">IIBBBBB", width, height, 16, colour_type, 0, 0, 0)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def read(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, idat, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    assert interlace == 0, "interlaced PNGs are not read here"
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour_type]
    step = channels * depth // 8
    stride = width * step
    raw = zlib.decompress(idat)
    previous = bytearray(stride)
    samples = []
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up = previous[i]
            corner = previous[i - step] if i >= step else 0
            line[i] = (line[i] + [0, left, up, (left + up) // 2, paeth(left, up, corner)][kind]) & 0xFF
        previous = line
        if depth == 16:
            samples += [line[i] << 8 | line[i + 1] for i in range(0, stride, 2)]
        else:
            samples += list(line)
    print(json.dumps({"bit_depth": depth, "colour_type": colour_type, "width": width, "height": height, "samples": samples}))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        read(sys.argv[2])
