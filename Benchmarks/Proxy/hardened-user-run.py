#!/usr/bin/env python3
"""A user's run of magpie proxy with issue 32's options: hostile and ordinary text marks, tiled
photo marks, /info blurhashes, raw, paddings, wide blurs, an oversized canvas, non-ASCII names.

usage: hardened-user-run.py PROXY_BASE ORIGIN_BASE NAME,NAME,... REQUESTS
  e.g. magpie serve /tmp/photos --port 18901 & magpie proxy --port 18902 --allow-unsigned
       --allow-addresses loopback & hardened-user-run.py http://127.0.0.1:18902
       http://127.0.0.1:18901 "$(ls /tmp/photos | paste -sd,)" 1800
Prints the statuses, the answers that were not what the URL should get, and p50/p99 seconds.
"""
import base64, io, json, random, sys, time, urllib.parse, urllib.request
from concurrent.futures import ThreadPoolExecutor
from PIL import Image

proxy, origin, names, count = sys.argv[1], sys.argv[2], sys.argv[3].split(","), int(sys.argv[4])
random.seed(7)
def b64(text): return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
def src(name): return urllib.parse.quote(f"{origin}/{name}", safe="")
markups = ['<span foreground="white" size="20pt">© Magpie</span>', '<b>Draft</b>', '<span font="Sans Bold 48" foreground="#ff000080">SAMPLE</span>',
           '<span font="16000">W</span>', '<span foo="bar">x</span>', '<i>text ' + 'x' * 50 + '</i>']
def url(i):
    name = random.choice(names); kind = i % 9
    if kind == 0: return f"/unsafe/s:400/wm:0.6:soea/wmt:{b64(random.choice(markups))}/plain/{src(name)}", {200, 400}
    if kind == 1: return f"/unsafe/s:300/wm:0.5:re:{random.choice([10, 100, 12000])}:{random.choice([10, 100, 12000])}/wmu:{b64(origin + '/' + random.choice(names))}/plain/{src(name)}", {200}
    if kind == 2: return f"/info/unsafe/bh:4:3/plain/{src(name)}", {200}
    if kind == 3: return f"/unsafe/raw:1/plain/{src(name)}", {200}
    if kind == 4: return f"/unsafe/s:256/pd:{random.choice([10, 500, 4096])}/plain/{src(name)}", {200, 422}
    if kind == 5: return f"/unsafe/s:512/bl:{random.choice([2, 20, 100])}/plain/{src(name)}", {200}
    if kind == 6: return f"/unsafe/w:8192/h:4882/el:1/ex:1/pd:1500/plain/{src(name)}", {422}
    if kind == 7: return f"/unsafe/fn:{b64('réport' + chr(92))}:1/s:128/plain/{src(name)}", {200}
    return f"/unsafe/rs:fill:256:256/f:webp/plain/{src(name)}", {200}
def get(i):
    path, expected = url(i)
    started = time.time()
    try:
        with urllib.request.urlopen(proxy + path, timeout=120) as r: status, body, headers = r.status, r.read(), r.headers
    except urllib.error.HTTPError as e: status, body, headers = e.code, e.read(), e.headers
    ok = status in expected or status in (503, 504)
    if status == 200 and not path.startswith("/info") and "raw:1" not in path: Image.open(io.BytesIO(body)).load()
    if headers.get("X-Content-Type-Options") != "nosniff": ok = False
    return status, ok, time.time() - started, path
with ThreadPoolExecutor(8) as pool: results = list(pool.map(get, range(count)))
statuses = {}
for s, ok, _, _ in results: statuses[s] = statuses.get(s, 0) + 1
bad = [(s, p) for s, ok, _, p in results if not ok]
times = sorted(t for _, _, t, _ in results)
print(json.dumps({"requests": count, "statuses": statuses, "unexpected": len(bad), "p50": round(times[len(times)//2], 3), "p99": round(times[len(times)*99//100], 3)}))
for s, p in bad[:5]: print("unexpected", s, p[:120])
