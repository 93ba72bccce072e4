"""thumbor 7.8's own filter code (its C extensions, thumbor.ext.filters) applied to an image, the
reference Magpie's thumbor filters are compared with.

Usage: thumbor_filters.py IN.png OUT.rgba FILTER ARGUMENTS_JSON

Reads IN.png as RGBA, runs thumbor's FILTER with the arguments (as thumbor's filter passes them,
without the image mode and buffer), and writes the RGBA bytes to OUT.rgba. Run it with the
Python of .build/thumbor-venv (scripts/install-dependencies).
"""
import importlib
import json
import sys

from PIL import Image


def main():
    source, target, name, arguments = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    image = Image.open(source).convert("RGBA")
    width, height = image.size
    data = bytes(image.tobytes())
    module = importlib.import_module("thumbor.ext.filters._" + name)
    if name == "curve":
        curves = [tuple(tuple(point) for point in curve) for curve in arguments]
        result = module.apply("RGBA", data, *curves)
    elif name == "convolution":
        kernel, columns, normalize = arguments
        result = module.apply("RGBA", data, width, height, tuple(kernel), columns, normalize)
    elif name == "equalize":
        result = module.apply("RGBA", data)
    elif name == "round_corner":
        across, down, red, green, blue, transparent = arguments
        result = module.apply(1, "RGBA", across, down, red, green, blue, width, height, data, transparent)
    elif name == "noise":
        amount, seed = arguments
        result = module.apply("RGBA", amount, data, seed)
    else:
        result = module.apply("RGBA", *arguments, data)
    with open(target, "wb") as out:
        out.write(result)


main()
