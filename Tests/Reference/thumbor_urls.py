#!/usr/bin/env python3
"""thumbor URLs built by libthumbor (PyPI), with what thumbor makes of each for a 1200x800
source, worked out by hand from thumbor's transformer (auto_crop, fit_in_resize, resize).

usage: thumbor_urls.py SECURITY_KEY SOURCE BORDERED_SOURCE MARK
SOURCE, BORDERED_SOURCE and MARK are host:port/path, as thumbor URLs carry them (the second is
the same source on a white 1400x1000 canvas at 100, 100; MARK a 40x20 magenta image). Prints a
JSON list of {name, path, status, width, height, format, window, corner, mark, ...} as
imgproxy_urls.py does.
"""
import json
import sys

from libthumbor import CryptoURL


def main():
    key, source, bordered, mark = sys.argv[1:]
    magenta = [255, 0, 255]
    crypto = CryptoURL(key=key)
    full = [0, 0, 1200, 800]
    cases = [
        # The box's aspect ratio is the source's: no crop, a resize.
        ("same ratio", dict(width=300, height=200), dict(width=300, height=200, window=full)),
        # A square from 1200x800: crop_width = ceil(300*800/300) = 800 around x = 600, left 200.
        ("square", dict(width=300, height=300), dict(width=300, height=300, window=[200, 0, 1000, 800])),
        ("left", dict(width=300, height=300, halign="left"), dict(width=300, height=300, window=[0, 0, 800, 800])),
        ("right", dict(width=300, height=300, halign="right"), dict(width=300, height=300, window=[400, 0, 1200, 800])),
        # 3:1: crop_height = round(1200*100/300) = 400, at the top or the bottom.
        ("top", dict(width=300, height=100, valign="top"), dict(width=300, height=100, window=[0, 0, 1200, 400])),
        ("bottom", dict(width=300, height=100, valign="bottom"), dict(width=300, height=100, window=[0, 400, 1200, 800])),
        ("middle", dict(width=300, height=100), dict(width=300, height=100, window=[0, 200, 1200, 600])),
        ("fit-in", dict(width=300, height=300, fit_in=True), dict(width=300, height=200, window=full)),
        # fit-in never enlarges.
        ("fit-in small", dict(width=2400, height=2400, fit_in=True), dict(width=1200, height=800, window=full)),
        # full-fit-in covers: 300 high, round(1200*300/800) = 450 wide.
        ("full-fit-in", dict(width=300, height=300, full_fit_in=True), dict(width=450, height=300, window=full)),
        # A portrait box for a landscape source is turned: 300x200.
        ("adaptive-fit-in", dict(width=200, height=300, adaptive_fit_in=True), dict(width=300, height=200, window=full)),
        ("flip", dict(width=300, height=200, flip=True), dict(width=300, height=200, corner=[1200, 0])),
        ("flop", dict(width=300, height=200, flop=True), dict(width=300, height=200, corner=[0, 800])),
        # The manual crop first, then 300 wide and proportional.
        ("manual crop", dict(width=300, crop=((100, 100), (700, 500))), dict(width=300, height=200, window=[100, 100, 700, 500])),
        ("original size", dict(), dict(width=1200, height=800, window=full)),
        ("width only", dict(width=600), dict(width=600, height=400, window=full)),
        ("height only", dict(height=200), dict(width=300, height=200, window=full)),
        # Cropping mode enlarges, unless no_upscale().
        ("enlarged", dict(width=2400, height=1600), dict(width=2400, height=1600, window=full)),
        ("no upscale", dict(width=2400, height=1600, filters=["no_upscale()"]), dict(width=1200, height=800, window=full)),
        ("smart", dict(width=300, height=300, smart=True), dict(width=300, height=300)),
        ("quality and format", dict(width=300, height=200, filters=["quality(50)", "format(jpeg)"]), dict(width=300, height=200, format="jpeg")),
        ("webp", dict(width=300, height=200, filters=["format(webp)"]), dict(width=300, height=200, format="webp")),
        ("blur", dict(width=300, height=200, filters=["blur(5)"]), dict(width=300, height=200)),
        ("sharpen", dict(width=300, height=200, filters=["sharpen(2,1,true)"]), dict(width=300, height=200)),
        ("grayscale", dict(width=300, height=200, filters=["grayscale()"]), dict(width=300, height=200, grey=True)),
        # Thumbor turns counter-clockwise after the resize: the source's top-right comes to the top left.
        ("rotate", dict(width=300, height=200, filters=["rotate(90)"]), dict(width=200, height=300, corner=[1200, 0])),
        ("round corner", dict(width=300, height=200, filters=["round_corner(20,255,0,0)"]), dict(width=300, height=200, background=[255, 0, 0])),
        ("round corner transparent", dict(width=300, height=200, filters=["round_corner(20,255,255,255,1)"]),
         dict(width=300, height=200, transparent_corner=True)),
        # fill pads a fit-in to the box: 300x200 centred on 300x300, red above and below.
        ("fill", dict(width=300, height=300, fit_in=True, filters=["fill(ff0000)"]), dict(width=300, height=300, background=[255, 0, 0])),
        ("background", dict(width=300, height=200, filters=["background_color(white)", "strip_exif()", "strip_icc()"]), dict(width=300, height=200)),
        ("proportion", dict(width=300, height=200, filters=["proportion(0.5)"]), dict(width=150, height=100, window=full)),
        ("trim", dict(width=300, trim=True, image_url=bordered), dict(width=300, height=200, window=full)),
        ("max bytes", dict(width=600, height=400, filters=["quality(100)", "format(jpeg)", "max_bytes(6000)"]),
         dict(width=600, height=400, format="jpeg", max_bytes=6000)),
        ("brightness and contrast", dict(width=300, height=200, filters=["brightness(10)", "contrast(20)"]), dict(width=300, height=200)),
        # orig: the source's side. 1200 wide and 300 high: 4:1 keeps the middle 300 rows, from (800 - 300) / 2.
        ("orig width", dict(width="orig", height=300), dict(width=1200, height=300, window=[0, 250, 1200, 550])),
        # focal: the square's 800 px crop centred on the rectangle's centre x = 750: left 350.
        ("focal", dict(width=300, height=300, filters=["focal(700x300:800x500)"]), dict(width=300, height=300, window=[350, 0, 1150, 800])),
        # Near the left edge the crop stops at it.
        ("focal at an edge", dict(width=300, height=300, smart=True, filters=["focal(100x100:300x300)"]),
         dict(width=300, height=300, window=[0, 0, 800, 800])),
        # A frame whose nine-patch cannot be loaded (no such host): thumbor's 400.
        ("unloadable frame", dict(width=300, height=200, filters=["frame(frame.png)"]), dict(status=400)),
        # thumbor skips a filter it does not have and serves the image.
        ("skipped filter", dict(width=300, height=200, filters=["redeye()"]), dict(width=300, height=200, window=[0, 0, 1200, 800])),
        # Watermarks on 300x200 (thumbor's watermark filter): x and y from the left and top, negative
        # from the right and bottom, center rounds down.
        ("watermark", dict(width=300, height=200, filters=[f"watermark({mark},10,5,0)"]), dict(width=300, height=200, mark=[10, 5, 50, 25, *magenta])),
        ("watermark from the far edges", dict(width=300, height=200, filters=[f"watermark({mark},-10,-5,0)"]),
         dict(width=300, height=200, mark=[250, 175, 290, 195, *magenta])),
        ("watermark center", dict(width=300, height=200, filters=[f"watermark({mark},center,center,0)"]),
         dict(width=300, height=200, mark=[130, 90, 170, 110, *magenta])),
        # repeat: 300 // 40 = 7 marks, 20 px over, 20 // 6 = 3 px apart (the second at 43).
        ("watermark repeat", dict(width=300, height=200, filters=[f"watermark({mark},repeat,5,0)"]),
         dict(width=300, height=200, mark=[43, 5, 83, 25, *magenta])),
        # Both ways: 200 // 20 = 10 rows with no gap; the fourth column's last row ends at 168, 199.
        ("watermark repeat both", dict(width=300, height=200, filters=[f"watermark({mark},repeat,repeat,0)"]),
         dict(width=300, height=200, blend=[168, 199, *magenta])),
        # 10p of 300 = 30, 20p of 200 = 40; w_ratio 25: 75 wide, round(20 * 75 / 40) = 38 (37.5, to even) high.
        ("watermark percent and ratio", dict(width=300, height=200, filters=[f"watermark({mark},10p,20p,0,25,none)"]),
         dict(width=300, height=200, mark=[30, 40, 105, 78, *magenta])),
        # alpha 50: half transparent over the gradient's top-left (0, 0, 128).
        ("watermark alpha", dict(width=300, height=200, filters=[f"watermark({mark},0,0,50)"]),
         dict(width=300, height=200, blend=[0, 0, 128, 0, 192])),
    ]
    # meta/: thumbor's JSON, as its JSON engine writes it for these operations (keys sorted).
    def meta(operations, target, url=source):
        body = {"thumbor": {"source": {"url": "http://" + url, "width": 1200, "height": 800, "frameCount": 1},
                            "operations": operations, "target": {"width": target[0], "height": target[1]}}}
        return dict(json=json.dumps(body, sort_keys=True, separators=(",", ":")))
    cases += [
        ("meta square", dict(width=300, height=300, meta=True),
         meta([{"type": "crop", "left": 200, "top": 0, "right": 1000, "bottom": 800},
               {"type": "resize", "width": 300, "height": 300}], (300, 300))),
        ("meta fit-in", dict(width=300, height=300, fit_in=True, meta=True), meta([{"type": "resize", "width": 300, "height": 200}], (300, 200))),
        ("meta manual crop and flip", dict(width=300, crop=((100, 100), (700, 500)), flip=True, meta=True),
         meta([{"type": "crop", "left": 100, "top": 100, "right": 700, "bottom": 500},
               {"type": "resize", "width": 300, "height": 200}, {"type": "flip_horizontally"}], (300, 200))),
    ]
    out = []
    for name, options, expected in cases:
        options = dict(options)
        options.setdefault("image_url", source)
        out.append(dict(name=name, path=crypto.generate(**options), **expected))
    unsafe = crypto.generate(width=300, height=200, image_url=source, unsafe=True)
    out.append(dict(name="unsafe", path="/" + unsafe, width=300, height=200, window=full))
    wrong = CryptoURL(key="not-the-key").generate(width=300, height=200, image_url=source)
    # thumbor's handler answers a signature that does not match 400 ("Malformed URL").
    out.append(dict(name="wrong key", path=wrong, status=400, message=None))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
