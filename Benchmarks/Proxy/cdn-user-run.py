#!/usr/bin/env python3
"""A user's run of magpie proxy with issue 34's first steps: imgproxy URLs as a CDN rewrites them
(`%3A` for the options' colons, `http:/` for `http://`), short colours, `@svg` (422), and
thumbor's `/healthcheck`. Every image answer is decoded by Pillow and its size checked.

usage: cdn-user-run.py PROXY_BASE ORIGIN_BASE NAME,NAME,... REQUESTS
  (the servers as in hardened-user-run.py's usage line)
"""
import io, sys, urllib.request, urllib.error
from concurrent.futures import ThreadPoolExecutor
from PIL import Image

proxy, origin, names, count = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
merged = origin.replace("http://", "http:/")  # a CDN merged the slashes

def case(i):
    name = names[i % len(names)]
    kind = i % 4
    if kind == 0: return f"/unsafe/rs%3Afit%3A300%3A300/f%3Awebp/plain/{merged}/{name}", 200, ("within", 300, 300)
    if kind == 1: return f"/unsafe/rs:fill:200:150/bg:f00/plain/{merged}/{name}@png", 200, ("exactly", 200, 150)
    if kind == 2: return f"/unsafe/s:100/plain/{origin}/{name}@svg", 422, None
    return f"/unsafe/s:128/t:10:fff/plain/{origin}/{name}", 200, ("within", 128, 128)

def get(i):
    path, expected, box = case(i)
    try:
        with urllib.request.urlopen(proxy + path, timeout=120) as r: status, body = r.status, r.read()
    except urllib.error.HTTPError as e: status, body = e.code, e.read()
    if status != expected and status != 503: return f"{status} {path} {body[:100]!r}"
    if status == 200:
        image = Image.open(io.BytesIO(body)); image.load()
        rule, width, height = box
        if rule == "exactly" and image.size != (width, height): return f"size {image.size} {path}"
        if rule == "within" and (image.width > width or image.height > height): return f"size {image.size} {path}"
    return None

with ThreadPoolExecutor(8) as pool: bad = [b for b in pool.map(get, range(count)) if b]
print({"requests": count, "unexpected": len(bad)}, bad[:5])
with urllib.request.urlopen(proxy + "/healthcheck") as r: print("/healthcheck", r.status, r.read())
