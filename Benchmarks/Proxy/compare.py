#!/usr/bin/env python3
"""magpie proxy against thumbor 7.8, side by side in one run, with wrk on loopback.

Both servers make 256 px JPEG thumbnails (fit inside 256x256, quality 80) of the same photo set
(../shared/tools/make-photos: 0.3 to 12 MP, a third progressive) served by `magpie serve`.
  cold: every request names a new source URL (a counter in the query), so nothing is cached;
  hot:  a small set of URLs repeated, each server's result cache on (thumbor: file result
        storage; magpie: its memory and disk result caches), after one warming pass.
Each server is started afresh for each mode; peak RSS is VmHWM, summed over thumbor's processes.

usage: Benchmarks/Proxy/compare.py [--seconds 30] [--connections 8] [--photos 18] [--photos-dir DIR] [--rounds 1] [--magpie PATH]...
                                   [--thumbor-urls resize|smart|filters]
Give --magpie more than once to compare builds (before and after a change) in the same run.
Needs: a release build of magpie (swift build -c release --product magpie), wrk, and thumbor 7.8
in a virtualenv (made in .build/thumbor-venv when missing)."""
import argparse, os, re, shutil, signal, subprocess, sys, tempfile, time, urllib.parse, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def start(cmd, pattern, env=None):
    """Starts a server and waits for the line that gives its port."""
    process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    for line in process.stdout:
        match = re.search(pattern, line)
        if match:
            return process, int(match.group(1))
    raise RuntimeError(f"{cmd[0]} did not start")


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def status_kb(pid, field):
    """A /proc status field (VmRSS, VmHWM) in kB, summed over the server and its children."""
    total = 0
    for p in [pid] + children(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                total += int(re.search(rf"{field}:\s+(\d+)", f.read()).group(1))
        except (OSError, AttributeError):
            pass
    return total


def stop(process):
    for child in children(process.pid):
        try:
            os.kill(child, signal.SIGTERM)
        except OSError:
            pass
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def trace_rss(pid, interval):
    """Samples the server's RSS in a thread; the returned function stops it and gives the samples."""
    import threading
    samples, done = [], threading.Event()

    def sample():
        while not done.wait(interval):
            samples.append(status_kb(pid, "VmRSS"))

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()

    def stop():
        done.set()
        thread.join()
        return samples
    return stop


def wait_ready(url):
    for _ in range(200):
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except Exception:
            time.sleep(0.1)
    raise RuntimeError(f"{url} never answered")


LUA = """
local counter = 0
local names = {%(names)s}
local prefix, origin, mode, suffix = "%(prefix)s", "%(origin)s", "%(mode)s", "%(suffix)s"
local function encode(s)
  return (s:gsub("[^%%w%%-%%._~]", function(c) return string.format("%%%%%%02X", string.byte(c)) end))
end
request = function()
  counter = counter + 1
  local name = names[(counter %% #names) + 1]
  local source = origin .. "/" .. name
  if mode == "cold" then source = source .. "?n=" .. counter end
  return wrk.format("GET", prefix .. encode(source) .. suffix)
end
"""


def wrk(port, prefix, suffix, origin, names, mode, seconds, connections):
    script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    script.write(LUA % {"names": ",".join(f'"{n}"' for n in names), "prefix": prefix, "origin": origin, "mode": mode, "suffix": suffix})
    script.close()
    out = run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s", "--latency", "-s", script.name,
               f"http://127.0.0.1:{port}"])
    os.unlink(script.name)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    def latency(p):
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, latency(50), latency(99), int(errors.group(1)) if errors else 0


# The same thumbor URL for both servers, each a JPEG at quality 80 (thumbor's QUALITY).
THUMBOR_WORKLOADS = {
    "resize": "/unsafe/fit-in/256x256/filters:format(jpeg)/",
    "smart": "/unsafe/256x256/smart/filters:format(jpeg)/",
    "filters": "/unsafe/fit-in/256x256/filters:grayscale():blur(2):sharpen(1,1,true):format(jpeg)/",
}


def thumbor_venv():
    venv = os.path.join(ROOT, ".build", "thumbor-venv")
    if not os.path.exists(os.path.join(venv, "bin", "thumbor")):
        run([sys.executable, "-m", "venv", venv])
        run([os.path.join(venv, "bin", "pip"), "install", "--quiet", "thumbor==7.8.0"])
    return os.path.join(venv, "bin", "thumbor")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--photos", type=int, default=18)
    parser.add_argument("--photos-dir", help="serve the JPEGs of this folder instead of the made photos")
    parser.add_argument("--hot-set", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--only", choices=["magpie", "thumbor"], help="run one server (for profiling)")
    parser.add_argument("--modes", default="cold,hot")
    parser.add_argument("--magpie", action="append",
                        help="a magpie binary (default .build/release/magpie; e.g. .build-system/release/magpie, built against "
                             "the system's libvips); repeat it to compare builds")
    parser.add_argument("--thumbor-urls", choices=sorted(THUMBOR_WORKLOADS),
                        help="send both servers the same thumbor URLs: resize (fit-in), smart (a smart crop) or filters (a chain)")
    parser.add_argument("--proxy-args", default="", help="extra arguments for every `magpie proxy` (e.g. \"--slots 8\")")
    parser.add_argument("--trace-rss", type=float, metavar="SECONDS", help="print each server's RSS every SECONDS during the run")
    args = parser.parse_args()

    binaries = [os.path.abspath(path) for path in (args.magpie or [os.path.join(ROOT, ".build", "release", "magpie")])]
    magpie = binaries[0]
    thumbor = thumbor_venv()
    photos = os.path.abspath(args.photos_dir) if args.photos_dir else os.path.join(ROOT, ".build", "bench-photos")
    if not args.photos_dir and len([n for n in os.listdir(photos) if n.endswith(".jpg")] if os.path.isdir(photos) else []) < args.photos:
        os.makedirs(photos, exist_ok=True)
        run([os.path.join(SHARED, "tools", "make-photos"), photos, str(args.photos)])
    names = sorted(n for n in os.listdir(photos) if n.endswith(".jpg"))[: args.photos]

    origin_process, origin_port = start([magpie, "serve", photos, "--port", "0"], r"127\.0\.0\.1:(\d+)/")
    origin = f"http://127.0.0.1:{origin_port}"
    work = tempfile.mkdtemp(prefix="proxy-bench-")

    def magpie_server(binary):
        cache = tempfile.mkdtemp(dir=work)
        return start([binary, "proxy", "--port", "0", "--allow-unsigned", "--allow-addresses", "loopback", "--cache-dir", cache,
                      "--queue", "1000", "--log-level", "warning"] + args.proxy_args.split(), r"127\.0\.0\.1:(\d+)/")

    def thumbor_server():
        cache = tempfile.mkdtemp(dir=work)
        conf = os.path.join(cache, "thumbor.conf")
        with open(conf, "w") as f:
            f.write(f"QUALITY = 80\nSTORAGE = 'thumbor.storages.file_storage'\nFILE_STORAGE_ROOT_PATH = '{cache}/storage'\n"
                    f"RESULT_STORAGE = 'thumbor.result_storages.file_storage'\n"
                    f"RESULT_STORAGE_FILE_STORAGE_ROOT_PATH = '{cache}/results'\nRESULT_STORAGE_STORES_UNSAFE = True\n"
                    f"HTTP_LOADER_MAX_CLIENTS = 32\n")
        port = int(run([sys.executable, "-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"]))
        process = subprocess.Popen([thumbor, "-p", str(port), "-i", "127.0.0.1", "-c", conf, "--processes", "2", "-l", "error"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_ready(f"http://127.0.0.1:{port}/healthcheck")
        return process, port

    servers = {}
    magpie_prefix = THUMBOR_WORKLOADS[args.thumbor_urls] if args.thumbor_urls else "/unsafe/s:256:256/q:80/f:jpeg/plain/"
    thumbor_prefix = THUMBOR_WORKLOADS[args.thumbor_urls or "resize"]
    for index, binary in enumerate(binaries):
        name = "magpie proxy" + (f" [{index + 1}]" if len(binaries) > 1 else "")
        servers[name] = (lambda binary=binary: magpie_server(binary), magpie_prefix, "")
    servers["thumbor 7.8 (2 processes)"] = (thumbor_server, thumbor_prefix, "")
    if args.thumbor_urls:
        print(f"both servers: {thumbor_prefix}SOURCE", flush=True)
    for index, binary in enumerate(binaries):
        print(f"magpie proxy [{index + 1}] = {binary}" if len(binaries) > 1 else f"magpie proxy = {binary}", flush=True)
    results = {}
    try:
        for _ in range(args.rounds):
            for mode in args.modes.split(","):
                for name, (make, prefix, suffix) in servers.items():
                    if args.only and not name.startswith(args.only):
                        continue
                    process, port = make()
                    try:
                        subset = names[: args.hot_set] if mode == "hot" else names
                        if mode == "hot":
                            for n in subset:
                                source = urllib.parse.quote(f"{origin}/{n}", safe="")
                                urllib.request.urlopen(f"http://127.0.0.1:{port}{prefix}{source}{suffix}", timeout=60).read()
                        tracer = trace_rss(process.pid, args.trace_rss) if args.trace_rss else None
                        rps, p50, p99, errors = wrk(port, prefix, suffix, origin, subset, mode, args.seconds, args.connections)
                        if tracer:
                            samples = tracer()
                            print(f"     RSS every {args.trace_rss:g} s (MB): " + " ".join(f"{kb / 1024:.0f}" for kb in samples), flush=True)
                        rss = status_kb(process.pid, "VmHWM") / 1024
                    finally:
                        stop(process)
                    results.setdefault((mode, name), []).append((rps, p50, p99, rss, errors))
                    print(f"{mode:4} {name:28} {rps:9.1f} req/s  p50 {p50:8.1f} ms  p99 {p99:8.1f} ms  peak RSS {rss:7.0f} MB"
                          f"{'  non-2xx: ' + str(errors) if errors else ''}", flush=True)
    finally:
        stop(origin_process)
        shutil.rmtree(work, ignore_errors=True)

    print("\n| mode | server | req/s | p50 | p99 | peak RSS |\n|---|---|---|---|---|---|")
    for (mode, name), rows in results.items():
        for rps, p50, p99, rss, errors in rows:
            print(f"| {mode} | {name} | {rps:.1f} | {p50:.0f} ms | {p99:.0f} ms | {rss:.0f} MB |")
    for mode in ["cold", "hot"]:
        t = [r for (md, n), rows in results.items() if md == mode and n.startswith("thumbor") for r in rows]
        for name in [n for n in servers if n.startswith("magpie")]:
            m = results.get((mode, name), [])
            if m and t:
                ratio = (sum(r[0] for r in m) / len(m)) / (sum(r[0] for r in t) / len(t))
                print(f"{mode}: {name}/thumbor requests per second = {ratio:.1f}x")


main()
