#!/usr/bin/env python3
"""Independent reference for Magpie's processors: the same operation done with Pillow.

usage: pillow_reference.py INPUT.png OUTPUT.png OPERATION [ARGUMENTS...]
  resize WIDTH HEIGHT     Lanczos (Pillow premultiplies RGBA itself)
  blur SIGMA              Gaussian blur, premultiplied
  gaussian SIGMA [REACH]  the Gaussian itself (SciPy's, edges repeated), premultiplied, its mask
                          reaching REACH sigmas (4 unless given; libvips' reaches to a fifth of
                          the peak, sqrt(2 ln 5) = 1.794 sigmas)
  round RADIUS            corners transparent outside arcs, anti-aliased by 8x supersampling
  grayscale               linear-light luminance (Rec. 709 weights), alpha kept
  rotate DEGREES          clockwise by 90, 180 or 270
  flip H V                mirror left-right when H is 1, top-bottom when V is 1
  embed W H X Y R G B A   on a W x H canvas of the colour, the image's corner at X, Y
  flatten R G B           composited over the opaque colour
  pixelate SIZE           each SIZE x SIZE block its average (sides must be multiples of SIZE)
  fill W H X Y CW CH      resized to W x H (Lanczos), then the CW x CH window at X, Y
  adjust B C S            each channel mixed with the Rec. 709 luma by S, scaled about 128 by C, B added
"""
import sys

from PIL import Image, ImageDraw, ImageFilter


def srgb_to_linear(value):
    value /= 255.0
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def linear_to_srgb(value):
    value = 12.92 * value if value <= 0.0031308 else 1.055 * value ** (1 / 2.4) - 0.055
    return max(0, min(255, round(value * 255)))


def main():
    source, destination, operation, *arguments = sys.argv[1:]
    image = Image.open(source).convert("RGBA")
    if operation == "resize":
        width, height = int(arguments[0]), int(arguments[1])
        result = image.resize((width, height), Image.Resampling.LANCZOS)
    elif operation == "blur":
        sigma = float(arguments[0])
        result = image.convert("RGBa").filter(ImageFilter.GaussianBlur(sigma)).convert("RGBA")
    elif operation == "gaussian":
        # Pillow's blur is three box passes; this is the Gaussian, computed in floats.
        import numpy
        from scipy.ndimage import gaussian_filter
        sigma = float(arguments[0])
        reach = float(arguments[1]) if len(arguments) > 1 else 4.0
        pixels = numpy.asarray(image, dtype=numpy.float64)
        alpha = pixels[:, :, 3:4] / 255.0
        premultiplied = numpy.concatenate([pixels[:, :, :3] * alpha, pixels[:, :, 3:4]], axis=2)
        blurred = numpy.stack([gaussian_filter(premultiplied[:, :, band], sigma, mode="nearest", truncate=reach) for band in range(4)], axis=2)
        cover = blurred[:, :, 3:4] / 255.0
        colour = numpy.where(cover > 0, blurred[:, :, :3] / numpy.maximum(cover, 1e-9), 0)
        result = Image.fromarray(numpy.clip(numpy.concatenate([colour, blurred[:, :, 3:4]], axis=2).round(), 0, 255).astype(numpy.uint8), "RGBA")
    elif operation == "unsharp":
        # Pillow's UnsharpMask: the image plus percent/100 of its difference from a Gaussian blur.
        sigma, amount = float(arguments[0]), float(arguments[1])
        rgb = image.convert("RGB").filter(ImageFilter.UnsharpMask(radius=sigma, percent=int(round(amount * 100)), threshold=0))
        result = rgb.convert("RGBA")
        result.putalpha(image.getchannel("A"))
    elif operation == "round":
        radius = float(arguments[0])
        scale = 8
        mask = Image.new("L", (image.width * scale, image.height * scale), 0)
        ImageDraw.Draw(mask).rounded_rectangle(
            (0, 0, image.width * scale - 1, image.height * scale - 1), radius=radius * scale, fill=255)
        mask = mask.resize(image.size, Image.Resampling.BOX)
        red, green, blue, original = image.split()
        combined = Image.new("L", image.size)
        combined.putdata([a * m // 255 for a, m in zip(original.getdata(), mask.getdata())])
        result = Image.merge("RGBA", (red, green, blue, combined))
    elif operation == "grayscale":
        lut = [srgb_to_linear(v) for v in range(256)]
        grey = Image.new("L", image.size)
        grey.putdata([
            linear_to_srgb(0.2126 * lut[r] + 0.7152 * lut[g] + 0.0722 * lut[b]) for r, g, b, _ in image.getdata()
        ])
        result = Image.merge("RGBA", (grey, grey, grey, image.getchannel("A")))
    elif operation == "rotate":
        turns = {"90": Image.Transpose.ROTATE_270, "180": Image.Transpose.ROTATE_180, "270": Image.Transpose.ROTATE_90}
        result = image.transpose(turns[arguments[0]])
    elif operation == "flip":
        result = image
        if arguments[0] == "1":
            result = result.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
        if arguments[1] == "1":
            result = result.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    elif operation == "embed":
        width, height, x, y, *colour = (int(value) for value in arguments)
        result = Image.new("RGBA", (width, height), tuple(colour))
        result.paste(image, (x, y))
    elif operation == "flatten":
        result = Image.new("RGBA", image.size, tuple(int(value) for value in arguments) + (255,))
        result.alpha_composite(image)
    elif operation == "pixelate":
        size = int(arguments[0])
        small = image.convert("RGBa").reduce(size)
        result = small.resize(image.size, Image.Resampling.NEAREST).convert("RGBA")
    elif operation == "adjust":
        brightness, contrast, saturation = (float(value) for value in arguments)
        pixels = []
        for r, g, b, a in image.getdata():
            grey = 0.2126 * r + 0.7152 * g + 0.0722 * b
            out = [(grey + (c - grey) * saturation - 128) * contrast + 128 + brightness for c in (r, g, b)]
            pixels.append(tuple(max(0, min(255, round(v))) for v in out) + (a,))
        result = Image.new("RGBA", image.size)
        result.putdata(pixels)
    elif operation == "fill":
        width, height, x, y, crop_width, crop_height = (int(value) for value in arguments)
        result = image.resize((width, height), Image.Resampling.LANCZOS).crop((x, y, x + crop_width, y + crop_height))
    else:
        sys.exit(f"unknown operation {operation}")
    result.save(destination)


if __name__ == "__main__":
    main()
