#!/usr/bin/env python3
"""A user's run of magpie proxy as a team switching from imgproxy and thumbor runs it (issue 34):
both grammars on one server, imgproxy's validator settings on (`IMGPROXY_USE_LAST_MODIFIED`,
`IMGPROXY_CACHE_CONTROL_PASSTHROUGH`) and thumbor's `MAX_WIDTH`/`MAX_HEIGHT`, over real-size
photos (some with wide-gamut or grey colour profiles) served by Python's file server (which
sends `Last-Modified` and answers `If-Modified-Since`). Requests mix imgproxy resizes with
negotiated formats, thumbor fit-ins with `fill(blur)`, `background_color(auto)`, smart crops and
filter chains, repeats of URLs already answered (the reading memo and the result cache),
conditional requests sent back with the answer's own validators (which must be 304s), and
`local:///` sources below `IMGPROXY_LOCAL_FILESYSTEM_ROOT`: the photos, and 16-bit PNGs made
from some of them (libvips' `vips` tool) asked with `preserve_hdr:1`, whose PNG answers must keep
16 bits, and `..` paths, which must be refused; and `s3://` sources from SeaweedFS on loopback
(issue 35: `IMGPROXY_USE_S3` and the AWS variables), in both grammars, with missing keys and a
denied bucket, which must be 404s. Every result is also written to a shared store
(`MAGPIE_STORE_S3_BUCKET`, the same SeaweedFS): the store must neither fail nor hold a damaged
object.

usage: drop-in-user-run.py MAGPIE_BINARY PHOTO_DIR REQUESTS
Prints statuses, anything not as the URL should get, p50/p99, and the proxy's peak RSS (VmHWM).
"""
import io, os, random, re, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.error, urllib.parse, urllib.request
from concurrent.futures import ThreadPoolExecutor
from PIL import Image
import seaweed_store

binary, photos, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = sorted(n for n in os.listdir(photos) if n.endswith(".jpg"))
random.seed(34)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


origin_port = free_port()
origin = subprocess.Popen([sys.executable, "-m", "http.server", str(origin_port), "--bind", "127.0.0.1", "--directory", photos],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
cache = tempfile.mkdtemp(prefix="drop-in-run-")
# The local root: the photos, and 16-bit PNGs of the 1-3 MP ones (each level times 257).
root = tempfile.mkdtemp(prefix="drop-in-root-")
for name in names:
    with open(os.path.join(photos, name), "rb") as original, open(os.path.join(root, name), "wb") as copy:
        copy.write(original.read())
deep = []
for name in [n for n in names if 1_000_000 <= Image.open(os.path.join(photos, n)).size[0] * Image.open(os.path.join(photos, n)).size[1] <= 3_200_000][:6]:
    stem = os.path.join(root, name[:-4])
    subprocess.run(["vips", "linear", os.path.join(photos, name), stem + ".v", "257", "0"], check=True)
    subprocess.run(["vips", "cast", stem + ".v", stem + ".u.v", "ushort"], check=True)
    subprocess.run(["vips", "copy", stem + ".u.v", stem + "-16.png", "--interpretation", "rgb16"], check=True)
    os.remove(stem + ".v")
    os.remove(stem + ".u.v")
    deep.append(name[:-4] + "-16.png")
# The object store: SeaweedFS on loopback only, telemetry off, every port chosen; the photos put
# through its filer.
store_dir = tempfile.mkdtemp(prefix="drop-in-store-")
keys = {"AWS_ACCESS_KEY_ID": "user-run", "AWS_SECRET_ACCESS_KEY": "user-run-secret"}
store, ports = seaweed_store.start(["photos", "private", "results"], store_dir, keys)
for name in names:
    for bucket in ["photos", "private"]:
        with open(os.path.join(photos, name), "rb") as photo:
            urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{ports['filer.port']}/buckets/{bucket}/shots/{name}",
                                                          data=photo.read(), method="PUT"), timeout=60)
environment = dict(os.environ, IMGPROXY_USE_LAST_MODIFIED="true", IMGPROXY_CACHE_CONTROL_PASSTHROUGH="true",
                   MAX_WIDTH="1200", MAX_HEIGHT="1200", AUTO_WEBP="True", IMGPROXY_LOCAL_FILESYSTEM_ROOT=root,
                   IMGPROXY_USE_S3="true", IMGPROXY_S3_ENDPOINT=f"127.0.0.1:{ports['s3.port']}", IMGPROXY_S3_DENIED_BUCKETS="private",
                   MAGPIE_STORE_S3_BUCKET="results", MAGPIE_STORE_S3_PREFIX="user-run/",
                   **keys)
proxy = subprocess.Popen([binary, "proxy", "--port", "0", "--allow-unsigned", "--allow-addresses", "loopback", "--cache-dir", cache,
                          "--log-level", "warning"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment)
port = None
for line in proxy.stdout:
    match = re.search(r"127\.0\.0\.1:(\d+)/", line)
    if match:
        port = int(match.group(1))
        break
base = f"http://127.0.0.1:{port}"
time.sleep(0.5)


def source(name, thumbor=False):
    url = f"http://127.0.0.1:{origin_port}/{name}"
    return url.replace("http://", "") if thumbor else "plain/" + urllib.parse.quote(url, safe="")


def url(index):
    """A path, request headers and the statuses it may get."""
    name = random.choice(names)
    kind = index % 8
    side = random.choice([64, 128, 256, 480, 800, 1600])
    if kind == 0:
        return f"/unsafe/rs:fill:{side}:{random.choice([64, 200, 700])}/q:{random.choice([60, 80, 95])}/{source(name)}", {}, {200}
    if kind == 1:
        return f"/unsafe/rs:fit:{side}:{side}/f:auto/{source(name)}", {"Accept": random.choice(["image/avif,image/webp,*/*", "image/webp,*/*", "*/*"])}, {200}
    if kind == 2:
        return f"/unsafe/fit-in/{side}x{side}/filters:fill(blur):quality(80)/{source(name, True)}", {}, {200}
    if kind == 3:
        return f"/unsafe/{side}x{side}/smart/{source(name, True)}", {}, {200}
    if kind == 4:
        return f"/unsafe/fit-in/{side}x{side}/filters:background_color(auto):grayscale():round_corner(20,255,255,255)/{source(name, True)}", {}, {200}
    if kind == 5:
        return f"/unsafe/{side}x0/filters:brightness(10):contrast(10):sharpen(1,1,true)/{source(name, True)}", {}, {200}
    if kind == 6 and index % 16 == 6:
        # A 16-bit PNG kept at 16 bits, or an escape from the root, refused.
        if index % 64 == 6:
            return f"/unsafe/rs:fit:{side}:{side}/plain/local:///../{random.choice(names)}", {}, {404}
        return f"/unsafe/rs:fill:{side}:{side // 2}/ph:1/f:png/plain/local:///{random.choice(deep)}", {}, {200}
    if kind == 6:
        return f"/unsafe/rs:fit:{side}:{side}/plain/local:///{name}", {}, {200}
    if index % 64 == 7:
        # A key the store does not have, or a bucket the settings deny.
        return f"/unsafe/rs:fit:{side}:{side}/plain/s3://{random.choice(['photos/shots/none.jpg', 'private/shots/' + name])}", {}, {404}
    if index % 32 == 15:
        return f"/unsafe/fit-in/{side}x{side}/s3://photos/shots/{name}", {}, {200}
    if index % 32 in (7, 23):
        return f"/unsafe/rs:fill:{side}:{side}/q:80/plain/s3://photos/shots/{name}", {}, {200}
    # A URL answered before, again: from the memo and the memory cache.
    return f"/unsafe/rs:fill:256:256/{source(names[index % 5])}", {}, {200}


answered = {}


def fetch(path, headers):
    request = urllib.request.Request(base + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers


def one(index):
    path, headers, expected = url(index)
    conditional = index % 10 == 9 and answered
    if conditional:
        # Sent back with what the answer said: the client's copy is current.
        path, validators = random.choice(list(answered.items()))
        headers = {"If-None-Match": validators[0]} if index % 20 == 19 and validators[0] else {"If-Modified-Since": validators[1]}
        expected = {304}
    started = time.time()
    status, body, response = fetch(path, headers)
    took = time.time() - started
    problems = []
    if status not in expected and status not in (503, 504):
        problems.append(f"{status} for {path[:120]} {headers}: {body[:120]!r}")
    if status == 200:
        try:
            Image.open(io.BytesIO(body)).load()
        except Exception as error:
            problems.append(f"undecodable answer to {path[:120]}: {error}")
        if "rs:fill:256:256" in path or "fit-in" in path:
            answered[path] = (response.get("ETag"), response.get("Last-Modified"))
        if "x0/" not in path and "fit-in" not in path and "smart" not in path and "rs:" not in path:
            pass
        if "ph:1/f:png" in path and body[24] != 16:
            problems.append(f"{body[24]}-bit PNG for {path[:120]}, asked to keep 16")
        if "/unsafe/" in path and "plain/" not in path:
            width, height = Image.open(io.BytesIO(body)).size
            if width > 1200 or height > 1200:
                problems.append(f"{width}x{height} over thumbor's MAX_WIDTH/MAX_HEIGHT for {path[:120]}")
    return status, took, problems


def vm_hwm(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)) // 1024


started = time.time()
statuses, times, problems = {}, [], []
try:
    # The repeats and conditionals need answers to refer to: a first pass warms them.
    for index in range(40):
        one(index)
    with ThreadPoolExecutor(8) as pool:
        for status, took, found in pool.map(one, range(count)):
            statuses[status] = statuses.get(status, 0) + 1
            times.append(took)
            problems += found
    peak = vm_hwm(proxy.pid)
    metrics = urllib.request.urlopen(f"{base}/metrics", timeout=30).read().decode()
    shared = {match.group(1): float(match.group(2)) for match in re.finditer(r'magpie_shared_store_total\{outcome="(\w+)"\} (\S+)', metrics)}
    if shared.get("failed", 0) or shared.get("damaged", 0):
        problems.append(f"the shared store failed or held damaged objects: {shared}")
finally:
    proxy.send_signal(signal.SIGTERM)
    proxy.wait(timeout=30)
    origin.terminate()
    store.kill()
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(store_dir, ignore_errors=True)
times.sort()
print(f"{count} requests in {time.time() - started:.0f} s; statuses {dict(sorted(statuses.items()))}")
print(f"p50 {times[len(times) // 2] * 1000:.0f} ms, p99 {times[int(len(times) * 0.99)] * 1000:.0f} ms; proxy peak RSS {peak} MB")
print("shared store: " + ", ".join(f"{name} {value:.0f}" for name, value in sorted(shared.items()) if value))
print(f"{len(problems)} answers not as the URL should get" + "".join("\n  " + p for p in problems[:20]))
sys.exit(1 if problems else 0)
