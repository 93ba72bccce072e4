#!/usr/bin/env python3
"""imgproxy URLs built by imgproxy's Python URL builder (PyPI `imgproxy`), with what imgproxy
makes of each for a 1200x800 source, worked out by hand from imgproxy's documentation.

usage: imgproxy_urls.py KEY_HEX SALT_HEX SOURCE_URL BORDERED_URL MARK_URL
BORDERED_URL is the same source on a white 1400x1000 canvas at (100, 100), for trim. The
operator's watermark is a 40x20 magenta image; MARK_URL serves a 20x20 cyan one.
Prints a JSON list of {name, path, status, width, height, format, window, disposition, mark}:
window is the source rectangle [left, top, right, bottom] the output shows, where it says; mark
is the output rectangle a watermark covers and its colour there.
"""
import base64
import json
import sys

from imgproxy import ImgProxy

# The builder always writes g:GRAVITY and rs:TYPE:WIDTH:HEIGHT:ENLARGE after the other options;
# empty rs values leave what the other options set (imgproxy skips empty arguments).
KEEP = dict(resizing_type="", width="", height="", enlarge="")


def case(name, expected, gravity="ce", extension="", advanced=(), bordered=False, **resize):
    return name, expected, gravity, extension, list(advanced), bordered, resize or KEEP


def main():
    key, salt, source, bordered_source, mark_url = sys.argv[1:]
    magenta, cyan = [255, 0, 255], [0, 255, 255]

    def b64(text):
        return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")

    fit = dict(resizing_type="fit", width=300, height=300)
    full = [0, 0, 1200, 800]
    cases = [
        # 1200/300 = 4 and 800/300 = 2.67: fit divides by the larger.
        case("rs fit", dict(width=300, height=200, window=full), resizing_type="fit", width=300, height=300, enlarge=False),
        # Fill divides by the smaller: 450x300, the centre 300 from left = round-half-even(151/2) = 76,
        # 76/450 of the source's width = 202.7.
        case("rs fill", dict(width=300, height=300, window=[202.7, 0, 1002.7, 800]), resizing_type="fill", width=300, height=300),
        case("fill east", dict(width=300, height=300, window=[400, 0, 1200, 800]), gravity="ea", resizing_type="fill", width=300, height=300),
        # 45 px from the west in the 450 px scaled image: 120 source pixels.
        case("fill west offset", dict(width=300, height=300, window=[120, 0, 920, 800]), gravity="we:45:0",
             resizing_type="fill", width=300, height=300),
        # Focus at 0.4 of 450 = 180: left 180 - 150 = 30, 80 source pixels.
        case("focus point", dict(width=300, height=300, window=[80, 0, 880, 800]), gravity="fp:0.4:0.5",
             resizing_type="fill", width=300, height=300),
        # 300x150 fills from 300x200; south, 0.1 of 200 = 20 up: top 200-150-20 = 30, 120 source pixels.
        case("south fraction offset", dict(width=300, height=150, window=[0, 120, 1200, 720]), gravity="so:0:0.1",
             resizing_type="fill", width=300, height=150),
        case("smart", dict(width=300, height=300), gravity="sm", resizing_type="fill", width=300, height=300),
        # Not enlarged; cut to the box's 1:1 instead: 800x800 from left round-half-even(401/2) = 200.
        case("fill-down", dict(width=800, height=800, window=[200, 0, 1000, 800]), resizing_type="fill-down", width=2400, height=2400),
        case("force", dict(width=300, height=100, window=full), resizing_type="force", width=300, height=100),
        # Landscape into a square: auto fills.
        case("auto", dict(width=300, height=300, window=[202.7, 0, 1002.7, 800]), resizing_type="auto", width=300, height=300),
        case("enlarge", dict(width=2400, height=1600, window=full), resizing_type="fit", width=2400, height=2400, enlarge=True),
        case("no enlarge", dict(width=1200, height=800, window=full), resizing_type="fit", width=2400, height=2400),
        # The unenlarged image centred on the 2400x2000 box: transparent around it.
        case("extend", dict(width=2400, height=2000, canvas=[600, 600]), advanced=["ex:1"], resizing_type="fit", width=2400, height=2000),
        case("extend aspect ratio", dict(width=300, height=300, canvas=[0, 50]), advanced=["exar:1"], resizing_type="fit", width=300, height=300),
        case("names w h rt", dict(width=300, height=300, window=[202.7, 0, 1002.7, 800]), advanced=["w:300", "h:300", "rt:fill"]),
        case("names width height resizing_type", dict(width=300, height=300, window=[202.7, 0, 1002.7, 800]),
             advanced=["width:300", "height:300", "resizing_type:fill"]),
        case("names size", dict(width=300, height=200, window=full), advanced=["size:300:300:0"]),
        case("names s", dict(width=300, height=200, window=full), advanced=["s:300:300"]),
        case("names resize", dict(width=300, height=300, window=[202.7, 0, 1002.7, 800]), advanced=["resize:fill:300:300"]),
        # Fit to 300x100 would divide by 8; at least 300 wide allows 4: 300x200, cut to the box.
        case("min-width", dict(width=300, height=100, window=[0, 200, 1200, 600]), advanced=["mw:300"],
             resizing_type="fit", width=300, height=100),
        # Fit would divide both by 8; at least 200 high allows 800/200 = 4, and the width's shrink
        # is divided by the same 8/4: 300x200, then cut to the box's 300x100 from its middle.
        case("min-height", dict(width=300, height=100, window=[0, 200, 1200, 600]), advanced=["min-height:200"],
             resizing_type="fit", width=300, height=100),
        case("zoom", dict(width=300, height=200, window=full), advanced=["z:0.5"], resizing_type="fit", width=600, height=600),
        case("dpr", dict(width=600, height=400, window=full), advanced=["dpr:2"], resizing_type="fit", width=300, height=300),
        case("crop", dict(width=300, height=200, window=[0, 0, 600, 400]), advanced=["c:600:400:nowe"],
             resizing_type="fit", width=300, height=300),
        case("crop fraction", dict(width=600, height=400, window=[600, 400, 1200, 800]), advanced=["crop:0.5:0.5:soea"]),
        case("padding", dict(width=340, height=220, canvas=[20, 10]), advanced=["pd:10:20"], resizing_type="fit", width=300, height=300),
        # A quarter turn clockwise: the source's bottom-left corner comes to the top left.
        case("rotate", dict(width=200, height=300, corner=[0, 800]), advanced=["rot:90"], resizing_type="fit", width=300, height=300),
        case("flip", dict(width=300, height=200, corner=[1200, 0]), advanced=["fl:1:0"], resizing_type="fit", width=300, height=300),
        case("background", dict(width=2400, height=2000, background=[255, 0, 0]), advanced=["ex:1", "bg:ff0000"],
             resizing_type="fit", width=2400, height=2000),
        case("blur", dict(width=300, height=200), advanced=["bl:2"], resizing_type="fit", width=300, height=300),
        case("sharpen", dict(width=300, height=200), advanced=["sharpen:1"], resizing_type="fit", width=300, height=300),
        case("pixelate", dict(width=300, height=200), advanced=["pix:10"], resizing_type="fit", width=300, height=300),
        case("quality and format", dict(width=300, height=200, format="jpeg"), advanced=["q:50", "f:jpg"], resizing_type="fit", width=300, height=300),
        case("format quality", dict(width=300, height=200, format="webp"), advanced=["fq:webp:40:jpeg:70", "format:webp"],
             resizing_type="fit", width=300, height=300),
        case("extension", dict(width=300, height=200, format="webp"), extension="webp", resizing_type="fit", width=300, height=300),
        case("ext", dict(width=300, height=200, format="avif"), advanced=["ext:avif"], resizing_type="fit", width=300, height=300),
        case("attachment", dict(width=300, height=200, disposition='attachment; filename="photo.png"'),
             advanced=["cb:2", "exp:4102444800", "fn:photo", "att:1"], resizing_type="fit", width=300, height=300),
        case("encoded filename", dict(width=300, height=200, disposition='inline; filename="été.png"'),
             advanced=["filename:w6l0w6k:1", "return_attachment:0", "cachebuster:x", "expires:0"],
             resizing_type="fit", width=300, height=300),
        case("preset", dict(width=100, height=100), advanced=["pr:thumb"]),
        case("metadata", dict(width=300, height=200), advanced=["sm:1", "scp:1", "kcr:0", "ar:1", "strip_metadata:t"],
             resizing_type="fit", width=300, height=300),
        case("skip processing", dict(original=True), advanced=["skp:png"], resizing_type="fit", width=300, height=300),
        case("raw", dict(original=True), advanced=["raw:1"], resizing_type="fit", width=300, height=300),
        # The white border found and cut, then the fit: the whole source at 300x200.
        case("trim", dict(width=300, height=200, window=full), advanced=["t:10"], bordered=True,
             resizing_type="fit", width=300, height=300),
        case("trim named colour", dict(width=1200, height=800, window=full), advanced=["trim:5:ffffff:1:1"], bordered=True),
        # Quality lowered until the JPEG fits in 6000 bytes (64 kB at quality 100).
        case("max bytes", dict(width=600, height=400, format="jpeg", max_bytes=6000), advanced=["q:100", "f:jpg", "mb:6000"],
             resizing_type="fit", width=600, height=600),
        case("adjust", dict(width=300, height=200), advanced=["a:10:1.2:0.5", "br:5", "co:1.1", "sa:0.9"],
             resizing_type="fit", width=300, height=300),
        # Pro options, free here. A duotone from black to white is grey; a monochrome in shades of
        # red runs black -> red -> white, so green and blue stay equal.
        case("duotone", dict(width=300, height=200, grey=True), advanced=["dt:1:000000:ffffff"], **fit),
        case("monochrome", dict(width=300, height=200, green_is_blue=True), advanced=["mc:1:ff0000"], **fit),
        # A still has one page: page 0 (and any other) is the image.
        case("page", dict(width=300, height=200, window=full), advanced=["pg:0"], **fit),
        # Half-transparent red where the canvas was transparent: (255, 0, 0, 128).
        case("background alpha", dict(width=2400, height=2000, corner_rgba=[255, 0, 0, 128]),
             advanced=["ex:1", "bg:ff0000", "bga:0.5"], resizing_type="fit", width=2400, height=2000),
        # Watermarks on the 300x200 result. The operator's mark is 40x20; offsets move it inwards.
        case("watermark north-west", dict(width=300, height=200, mark=[10, 5, 50, 25, *magenta]), advanced=["wm:1:nowe:10:5"], **fit),
        case("watermark south-east", dict(width=300, height=200, mark=[260, 180, 300, 200, *magenta]), advanced=["watermark:1:soea"], **fit),
        # Centred: left = round-half-even((300 - 40 + 1) / 2) = 130, top = round-half-even(181 / 2) = 90.
        case("watermark centre", dict(width=300, height=200, mark=[130, 90, 170, 110, *magenta]), advanced=["wm:1:ce"], **fit),
        # Scale 0.5: fitted in 150x100, so 150x75 (3.75 times); centred at round-half-even(151 / 2) = 76 and 126 / 2 = 63.
        case("watermark scale", dict(width=300, height=200, mark=[76, 63, 226, 138, *magenta]), advanced=["wm:1:ce:0:0:0.5"], **fit),
        # Tiled with 20 px across and 10 down between marks: 60x30 cells, 5 x 7 of them centred on
        # 300x210 (5 px above the image), the mark 10 px into each: the second column's second row
        # mark covers 70...110 x 30...50.
        case("watermark repeated", dict(width=300, height=200, mark=[70, 30, 110, 50, *magenta]), advanced=["wm:1:re:20:10"], **fit),
        # Half opacity over the gradient's top-left (0, 0, 128): (128, 0, 192).
        case("watermark opacity", dict(width=300, height=200, blend=[0, 0, 128, 0, 192]), advanced=["wm:0.5:nowe"], **fit),
        case("watermark url", dict(width=300, height=200, mark=[0, 0, 20, 20, *cyan]), advanced=["wm:1:nowe", "wmu:" + b64(mark_url)], **fit),
        # Green text in the middle; its size is the font's, so only its colour is checked, at the centre.
        case("watermark text", dict(width=300, height=200, tint=[0, 255, 0]),
             advanced=["watermark_text:" + b64('<span foreground="#00ff00">MMMM</span>'), "wm:1:ce:0:0:0.8"], **fit),
    ]
    out = []
    for name, expected, gravity, extension, advanced, bordered, resize in cases:
        builder = ImgProxy(bordered_source if bordered else source, key=key, salt=salt, gravity=gravity, extension=extension, advanced=advanced, **resize)
        out.append(dict(name=name, path=builder(), **expected))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
