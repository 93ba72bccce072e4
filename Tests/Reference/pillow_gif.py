"""GIFs that browsers show and strict decoders refuse, and Pillow's reading of them: the
independent reference for Magpie's GIF tests.

usage: pillow_gif.py make DIR        writes still.gif (an interlaced 200x150 still), cut.gif (its
                                     first 60%: the frame's data ends early) and no-table.gif
                                     (5 frames, no global or local colour table)
       pillow_gif.py rgba FILE OUT   writes every frame as Pillow reads it, RGBA rows, frames one
                                     after another (a cut file as LOAD_TRUNCATED_IMAGES shows it);
                                     prints {"frames": n, "width": w, "height": h}
"""
import io
import json
import sys

from PIL import Image, ImageDraw, ImageFile


def still():
    """Rows of 64 colours from a ramp; index 0 (magenta) is never drawn, so the rows Pillow fills
    in for a cut file cannot be mistaken for rows that arrived."""
    image = Image.new("P", (200, 150), 1)
    palette = [255, 0, 255]
    for index in range(1, 64):
        palette += [index * 4, 255 - index * 4, (index * 12) % 256]
    image.putpalette(palette + [0] * (192 * 3))
    draw = ImageDraw.Draw(image)
    for y in range(150):
        draw.line([(0, y), (199, y)], fill=1 + y * 62 // 149)
        draw.point((y, y), fill=63 - y * 62 // 149)
    buffer = io.BytesIO()
    image.save(buffer, "GIF", interlace=True, optimize=False)
    return buffer.getvalue()


def skip_sub_blocks(data, offset):
    """The offset after a chain of data sub-blocks and its zero terminator."""
    while data[offset]:
        offset += data[offset] + 1
    return offset + 1


def without_colour_tables(data):
    """Drops the global table and every local one, clearing their flags."""
    flags = data[10]
    offset = 13 + ((3 << ((flags & 7) + 1)) if flags & 0x80 else 0)
    out = bytearray(data[:13])
    out[10] = flags & 0x70
    while offset < len(data):
        introducer = data[offset]
        if introducer == 0x21:
            start = offset
            offset = skip_sub_blocks(data, offset + 2)
            out += data[start:offset]
        elif introducer == 0x2C:
            descriptor = bytearray(data[offset:offset + 10])
            local = descriptor[9]
            offset += 10
            if local & 0x80:
                offset += 3 << ((local & 7) + 1)
            descriptor[9] = local & 0x40
            out += descriptor
            start = offset
            offset = skip_sub_blocks(data, offset + 1)
            out += data[start:offset]
        else:
            out += data[offset:]
            break
    return bytes(out)


def animation():
    frames = []
    for index in range(5):
        frame = Image.new("P", (64, 48), 0)
        frame.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255] + [0] * (251 * 3))
        ImageDraw.Draw(frame).rectangle([index * 10, 5, index * 10 + 12, 40], fill=1 + index % 4)
        frames.append(frame)
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0, optimize=False)
    return without_colour_tables(buffer.getvalue())


def main():
    if sys.argv[1] == "make":
        folder = sys.argv[2]
        data = still()
        open(f"{folder}/still.gif", "wb").write(data)
        open(f"{folder}/cut.gif", "wb").write(data[: len(data) * 6 // 10])
        open(f"{folder}/no-table.gif", "wb").write(animation())
        return
    ImageFile.LOAD_TRUNCATED_IMAGES = True
    image = Image.open(sys.argv[2])
    frames = getattr(image, "n_frames", 1)
    with open(sys.argv[3], "wb") as out:
        for index in range(frames):
            image.seek(index)
            out.write(image.convert("RGBA").tobytes())
    print(json.dumps({"frames": frames, "width": image.size[0], "height": image.size[1]}))


main()
